-- CreateEnum
CREATE TYPE "PaymentRequestStatus" AS ENUM ('pending', 'succeeded', 'failed');

-- CreateTable
CREATE TABLE "mpesa_channels" (
    "tenant_id" INTEGER NOT NULL,
    "shortcode" TEXT NOT NULL,
    "callback_token_hash" TEXT NOT NULL,
    "callback_token_enc" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mpesa_channels_pkey" PRIMARY KEY ("tenant_id")
);

-- CreateTable
CREATE TABLE "payment_requests" (
    "id" UUID NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "merchant_request_id" TEXT NOT NULL,
    "checkout_request_id" TEXT NOT NULL,
    "phone" TEXT NOT NULL,
    "amount_minor" BIGINT NOT NULL,
    "account" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "policy_id" INTEGER,
    "debit_note_id" INTEGER,
    "client_id" INTEGER,
    "status" "PaymentRequestStatus" NOT NULL DEFAULT 'pending',
    "result_code" INTEGER,
    "result_desc" TEXT,
    "mpesa_receipt_no" TEXT,
    "receipt_id" INTEGER,
    "requested_by_user_id" INTEGER,
    "api_client_id" INTEGER,
    "resolved_via" TEXT,
    "resolved_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "payment_requests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "mpesa_callbacks" (
    "id" BIGSERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "checkout_request_id" TEXT,
    "raw_body" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" TIMESTAMPTZ(3),
    "outcome" TEXT,
    "error" TEXT,

    CONSTRAINT "mpesa_callbacks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "receipts" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "receipt_no" TEXT NOT NULL,
    "client_id" INTEGER,
    "policy_id" INTEGER,
    "payment_request_id" UUID,
    "method" TEXT NOT NULL,
    "transaction_ref" TEXT NOT NULL,
    "phone" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "amount_minor" BIGINT NOT NULL,
    "unallocated_minor" BIGINT NOT NULL,
    "paid_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "receipts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "receipt_allocations" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "receipt_id" INTEGER NOT NULL,
    "debit_note_id" INTEGER NOT NULL,
    "amount_minor" BIGINT NOT NULL,

    CONSTRAINT "receipt_allocations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "client_credits" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "client_id" INTEGER NOT NULL,
    "receipt_id" INTEGER,
    "amount_minor" BIGINT NOT NULL,
    "reason" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "client_credits_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "certificate_requests" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "policy_id" INTEGER NOT NULL,
    "receipt_id" INTEGER,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "requested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "certificate_requests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "mpesa_sim_prompts" (
    "checkout_request_id" TEXT NOT NULL,
    "merchant_request_id" TEXT NOT NULL,
    "shortcode" TEXT NOT NULL,
    "phone" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "account_reference" TEXT NOT NULL,
    "callback_url" TEXT NOT NULL,
    "result_code" INTEGER,
    "result_desc" TEXT,
    "receipt_no" TEXT,
    "transaction_date" TEXT,
    "resolved_at" TIMESTAMPTZ(3),
    "callback_status" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mpesa_sim_prompts_pkey" PRIMARY KEY ("checkout_request_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "mpesa_channels_callback_token_hash_key" ON "mpesa_channels"("callback_token_hash");

-- CreateIndex
CREATE INDEX "payment_requests_tenant_id_status_created_at_idx" ON "payment_requests"("tenant_id", "status", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "payment_requests_tenant_id_checkout_request_id_key" ON "payment_requests"("tenant_id", "checkout_request_id");

-- CreateIndex
CREATE INDEX "mpesa_callbacks_tenant_id_checkout_request_id_idx" ON "mpesa_callbacks"("tenant_id", "checkout_request_id");

-- CreateIndex
CREATE UNIQUE INDEX "receipts_payment_request_id_key" ON "receipts"("payment_request_id");

-- CreateIndex
CREATE INDEX "receipts_tenant_id_created_at_id_idx" ON "receipts"("tenant_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "receipts_tenant_id_receipt_no_key" ON "receipts"("tenant_id", "receipt_no");

-- CreateIndex
CREATE UNIQUE INDEX "receipts_tenant_id_transaction_ref_key" ON "receipts"("tenant_id", "transaction_ref");

-- CreateIndex
CREATE INDEX "receipt_allocations_receipt_id_idx" ON "receipt_allocations"("receipt_id");

-- CreateIndex
CREATE INDEX "receipt_allocations_debit_note_id_idx" ON "receipt_allocations"("debit_note_id");

-- CreateIndex
CREATE INDEX "client_credits_client_id_idx" ON "client_credits"("client_id");

-- CreateIndex
CREATE UNIQUE INDEX "certificate_requests_policy_id_key" ON "certificate_requests"("policy_id");

-- AddForeignKey
ALTER TABLE "payment_requests" ADD CONSTRAINT "payment_requests_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "receipts" ADD CONSTRAINT "receipts_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "receipts" ADD CONSTRAINT "receipts_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "receipt_allocations" ADD CONSTRAINT "receipt_allocations_receipt_id_fkey" FOREIGN KEY ("receipt_id") REFERENCES "receipts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "receipt_allocations" ADD CONSTRAINT "receipt_allocations_debit_note_id_fkey" FOREIGN KEY ("debit_note_id") REFERENCES "debit_notes"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "client_credits" ADD CONSTRAINT "client_credits_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "certificate_requests" ADD CONSTRAINT "certificate_requests_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
