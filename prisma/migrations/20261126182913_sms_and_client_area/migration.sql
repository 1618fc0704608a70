-- CreateTable
CREATE TABLE "sms_sender_ids" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "sender_id" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sms_sender_ids_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sms_accounts" (
    "tenant_id" INTEGER NOT NULL,
    "balance_units" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sms_accounts_pkey" PRIMARY KEY ("tenant_id")
);

-- CreateTable
CREATE TABLE "sms_ledger" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "units" INTEGER NOT NULL,
    "balance_after" INTEGER NOT NULL,
    "message_id" INTEGER,
    "reference" TEXT,
    "reason" TEXT,
    "actor_user_id" INTEGER,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sms_ledger_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sms_templates" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "code" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sms_templates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sms_messages" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "uuid" UUID NOT NULL,
    "sender_id" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "encoding" TEXT NOT NULL,
    "segments" INTEGER NOT NULL,
    "purpose" TEXT NOT NULL,
    "template_code" TEXT,
    "event_id" UUID,
    "recipient_count" INTEGER NOT NULL,
    "units_reserved" INTEGER NOT NULL,
    "units_released" INTEGER NOT NULL DEFAULT 0,
    "client_id" INTEGER,
    "created_by_user_id" INTEGER,
    "created_by_api_client_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sms_messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sms_recipients" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "message_id" INTEGER NOT NULL,
    "phone" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "gateway_message_id" TEXT,
    "status_code" INTEGER,
    "status_text" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "units" INTEGER NOT NULL,
    "released" BOOLEAN NOT NULL DEFAULT false,
    "sent_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "failed_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sms_recipients_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sms_sim_messages" (
    "gateway_message_id" TEXT NOT NULL,
    "sender_id" TEXT NOT NULL,
    "phone" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "status_code" INTEGER NOT NULL,
    "report_url_sealed" TEXT,
    "delivery_status" TEXT,
    "reported_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sms_sim_messages_pkey" PRIMARY KEY ("gateway_message_id")
);

-- CreateTable
CREATE TABLE "client_otps" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "uuid" UUID NOT NULL,
    "phone" TEXT NOT NULL,
    "client_id" INTEGER,
    "purpose" TEXT NOT NULL,
    "code_hash" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "consumed_at" TIMESTAMPTZ(3),
    "request_ip" TEXT,
    "sms_message_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "client_otps_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "sms_sender_ids_tenant_id_sender_id_key" ON "sms_sender_ids"("tenant_id", "sender_id");

-- CreateIndex
CREATE INDEX "sms_ledger_tenant_id_id_idx" ON "sms_ledger"("tenant_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "sms_templates_tenant_id_code_key" ON "sms_templates"("tenant_id", "code");

-- CreateIndex
CREATE UNIQUE INDEX "sms_messages_uuid_key" ON "sms_messages"("uuid");

-- CreateIndex
CREATE INDEX "sms_messages_tenant_id_created_at_id_idx" ON "sms_messages"("tenant_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "sms_messages_tenant_id_event_id_key" ON "sms_messages"("tenant_id", "event_id");

-- CreateIndex
CREATE UNIQUE INDEX "sms_recipients_gateway_message_id_key" ON "sms_recipients"("gateway_message_id");

-- CreateIndex
CREATE INDEX "sms_recipients_message_id_idx" ON "sms_recipients"("message_id");

-- CreateIndex
CREATE INDEX "sms_recipients_status_next_attempt_at_idx" ON "sms_recipients"("status", "next_attempt_at");

-- CreateIndex
CREATE UNIQUE INDEX "client_otps_uuid_key" ON "client_otps"("uuid");

-- CreateIndex
CREATE INDEX "client_otps_tenant_id_phone_created_at_idx" ON "client_otps"("tenant_id", "phone", "created_at");

-- AddForeignKey
ALTER TABLE "sms_recipients" ADD CONSTRAINT "sms_recipients_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "sms_messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;
