-- CreateEnum
CREATE TYPE "ClaimStatus" AS ENUM ('registered', 'documents_pending', 'with_underwriter', 'under_assessment', 'approved', 'repudiated', 'settled', 'closed', 'withdrawn');

-- CreateEnum
CREATE TYPE "ProspectStatus" AS ENUM ('new', 'contacted', 'qualified', 'quoted', 'won', 'lost');

-- AlterTable
ALTER TABLE "motor_products" ADD COLUMN     "excess_terms" JSONB;

-- CreateTable
CREATE TABLE "claim_causes" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "product_line" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "documents" TEXT[],
    "reserve_bps" INTEGER NOT NULL DEFAULT 0,
    "reserve_min_minor" BIGINT NOT NULL DEFAULT 0,
    "excess_term" TEXT NOT NULL DEFAULT 'none',
    "active" BOOLEAN NOT NULL DEFAULT true,
    "sort_order" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "claim_causes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "claims" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "uuid" UUID NOT NULL,
    "claim_no" TEXT NOT NULL,
    "policy_id" INTEGER NOT NULL,
    "client_id" INTEGER NOT NULL,
    "insurer_id" INTEGER NOT NULL,
    "vehicle_id" INTEGER,
    "reg_no" TEXT,
    "product_line" TEXT NOT NULL,
    "cause_code" TEXT NOT NULL,
    "status" "ClaimStatus" NOT NULL DEFAULT 'registered',
    "loss_date" DATE NOT NULL,
    "loss_time" TEXT,
    "loss_place" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "third_parties" JSONB NOT NULL DEFAULT '[]',
    "witnesses" JSONB NOT NULL DEFAULT '[]',
    "police_abstract_no" TEXT,
    "anti_theft_device" BOOLEAN,
    "reporter_name" TEXT NOT NULL,
    "reporter_phone" TEXT,
    "reporter_relationship" TEXT,
    "channel" TEXT NOT NULL,
    "reported_at" TIMESTAMPTZ(3) NOT NULL,
    "late_notification" BOOLEAN NOT NULL,
    "estimated_loss_minor" BIGINT,
    "sum_insured_minor" BIGINT,
    "reserve_minor" BIGINT NOT NULL DEFAULT 0,
    "assessor_name" TEXT,
    "assessor_phone" TEXT,
    "assessor_firm" TEXT,
    "assessor_appointed_at" TIMESTAMPTZ(3),
    "assessed_amount_minor" BIGINT,
    "salvage_minor" BIGINT,
    "assessment_notes" TEXT,
    "assessed_at" TIMESTAMPTZ(3),
    "approved_amount_minor" BIGINT,
    "excess_minor" BIGINT,
    "net_payable_minor" BIGINT,
    "approved_at" TIMESTAMPTZ(3),
    "repudiation_reason" TEXT,
    "repudiation_note" TEXT,
    "paid_minor" BIGINT NOT NULL DEFAULT 0,
    "committed_minor" BIGINT NOT NULL DEFAULT 0,
    "assignee_user_id" INTEGER,
    "created_by_user_id" INTEGER,
    "created_by_api_client_id" INTEGER,
    "status_changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sla_due_at" TIMESTAMPTZ(3),
    "sla_breach_notified_at" TIMESTAMPTZ(3),
    "closed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "claims_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "claim_status_changes" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "claim_id" INTEGER NOT NULL,
    "from_status" "ClaimStatus",
    "to_status" "ClaimStatus" NOT NULL,
    "source" TEXT NOT NULL,
    "reason" TEXT,
    "actor_user_id" INTEGER,
    "actor_api_client_id" INTEGER,
    "actor_name" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "claim_status_changes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "claim_documents" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "claim_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "required" BOOLEAN NOT NULL DEFAULT true,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "note" TEXT,
    "decided_at" TIMESTAMPTZ(3),
    "decided_by_user_id" INTEGER,
    "sort_order" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "claim_documents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "claim_document_files" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "uuid" UUID NOT NULL,
    "claim_id" INTEGER NOT NULL,
    "document_id" INTEGER NOT NULL,
    "file_name" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "storage_key" TEXT NOT NULL,
    "uploaded_by_user_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "claim_document_files_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "document_blobs" (
    "key" TEXT NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "content" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "document_blobs_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "claim_reserve_movements" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "claim_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "amount_minor" BIGINT NOT NULL,
    "balance_after_minor" BIGINT NOT NULL,
    "reason" TEXT NOT NULL,
    "actor_user_id" INTEGER,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "claim_reserve_movements_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "claim_payments" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "uuid" UUID NOT NULL,
    "claim_id" INTEGER NOT NULL,
    "payee_type" TEXT NOT NULL,
    "payee_name" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "phone" TEXT,
    "bank_name" TEXT,
    "bank_account" TEXT,
    "amount_minor" BIGINT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "reference" TEXT NOT NULL,
    "conversation_id" TEXT,
    "transaction_id" TEXT,
    "result_code" INTEGER,
    "result_desc" TEXT,
    "note" TEXT,
    "requested_by_user_id" INTEGER,
    "requested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sent_at" TIMESTAMPTZ(3),
    "paid_at" TIMESTAMPTZ(3),
    "failed_at" TIMESTAMPTZ(3),

    CONSTRAINT "claim_payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "mpesa_sim_b2c" (
    "originator_conversation_id" TEXT NOT NULL,
    "conversation_id" TEXT NOT NULL,
    "shortcode" TEXT NOT NULL,
    "phone" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "command_id" TEXT NOT NULL,
    "result_url_sealed" TEXT,
    "result_code" INTEGER,
    "result_desc" TEXT,
    "transaction_id" TEXT,
    "resolved_at" TIMESTAMPTZ(3),
    "callback_status" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mpesa_sim_b2c_pkey" PRIMARY KEY ("originator_conversation_id")
);

-- CreateTable
CREATE TABLE "prospects" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "uuid" UUID NOT NULL,
    "prospect_no" TEXT NOT NULL,
    "type" TEXT NOT NULL DEFAULT 'individual',
    "name" TEXT NOT NULL,
    "phone" TEXT,
    "email" TEXT,
    "id_no" TEXT,
    "kra_pin" TEXT,
    "source" TEXT,
    "interests" TEXT[],
    "estimated_premium_minor" BIGINT,
    "status" "ProspectStatus" NOT NULL DEFAULT 'new',
    "lost_reason" TEXT,
    "assignee_user_id" INTEGER,
    "next_follow_up_on" DATE,
    "follow_up_notified_on" DATE,
    "client_id" INTEGER,
    "created_by_user_id" INTEGER,
    "created_by_api_client_id" INTEGER,
    "status_changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "prospects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "prospect_notes" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "prospect_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "body" TEXT,
    "from_status" "ProspectStatus",
    "to_status" "ProspectStatus",
    "actor_user_id" INTEGER,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "prospect_notes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "claim_causes_tenant_id_product_line_code_key" ON "claim_causes"("tenant_id", "product_line", "code");

-- CreateIndex
CREATE UNIQUE INDEX "claims_uuid_key" ON "claims"("uuid");

-- CreateIndex
CREATE INDEX "claims_tenant_id_status_idx" ON "claims"("tenant_id", "status");

-- CreateIndex
CREATE INDEX "claims_tenant_id_created_at_id_idx" ON "claims"("tenant_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "claims_policy_id_idx" ON "claims"("policy_id");

-- CreateIndex
CREATE INDEX "claims_tenant_id_sla_due_at_idx" ON "claims"("tenant_id", "sla_due_at");

-- CreateIndex
CREATE UNIQUE INDEX "claims_tenant_id_claim_no_key" ON "claims"("tenant_id", "claim_no");

-- CreateIndex
CREATE INDEX "claim_status_changes_claim_id_id_idx" ON "claim_status_changes"("claim_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "claim_documents_claim_id_kind_key" ON "claim_documents"("claim_id", "kind");

-- CreateIndex
CREATE UNIQUE INDEX "claim_document_files_uuid_key" ON "claim_document_files"("uuid");

-- CreateIndex
CREATE INDEX "claim_document_files_claim_id_idx" ON "claim_document_files"("claim_id");

-- CreateIndex
CREATE INDEX "claim_reserve_movements_claim_id_id_idx" ON "claim_reserve_movements"("claim_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "claim_payments_uuid_key" ON "claim_payments"("uuid");

-- CreateIndex
CREATE INDEX "claim_payments_claim_id_idx" ON "claim_payments"("claim_id");

-- CreateIndex
CREATE INDEX "claim_payments_status_requested_at_idx" ON "claim_payments"("status", "requested_at");

-- CreateIndex
CREATE UNIQUE INDEX "claim_payments_tenant_id_reference_key" ON "claim_payments"("tenant_id", "reference");

-- CreateIndex
CREATE UNIQUE INDEX "mpesa_sim_b2c_conversation_id_key" ON "mpesa_sim_b2c"("conversation_id");

-- CreateIndex
CREATE UNIQUE INDEX "prospects_uuid_key" ON "prospects"("uuid");

-- CreateIndex
CREATE INDEX "prospects_tenant_id_created_at_id_idx" ON "prospects"("tenant_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "prospects_tenant_id_phone_idx" ON "prospects"("tenant_id", "phone");

-- CreateIndex
CREATE INDEX "prospects_tenant_id_id_no_idx" ON "prospects"("tenant_id", "id_no");

-- CreateIndex
CREATE INDEX "prospects_tenant_id_kra_pin_idx" ON "prospects"("tenant_id", "kra_pin");

-- CreateIndex
CREATE INDEX "prospects_tenant_id_next_follow_up_on_idx" ON "prospects"("tenant_id", "next_follow_up_on");

-- CreateIndex
CREATE INDEX "prospects_client_id_idx" ON "prospects"("client_id");

-- CreateIndex
CREATE UNIQUE INDEX "prospects_tenant_id_prospect_no_key" ON "prospects"("tenant_id", "prospect_no");

-- CreateIndex
CREATE INDEX "prospect_notes_prospect_id_id_idx" ON "prospect_notes"("prospect_id", "id");

-- AddForeignKey
ALTER TABLE "claims" ADD CONSTRAINT "claims_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claims" ADD CONSTRAINT "claims_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claims" ADD CONSTRAINT "claims_insurer_id_fkey" FOREIGN KEY ("insurer_id") REFERENCES "insurers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claims" ADD CONSTRAINT "claims_vehicle_id_fkey" FOREIGN KEY ("vehicle_id") REFERENCES "policy_vehicles"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claims" ADD CONSTRAINT "claims_assignee_user_id_fkey" FOREIGN KEY ("assignee_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claims" ADD CONSTRAINT "claims_created_by_user_id_fkey" FOREIGN KEY ("created_by_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claim_status_changes" ADD CONSTRAINT "claim_status_changes_claim_id_fkey" FOREIGN KEY ("claim_id") REFERENCES "claims"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claim_documents" ADD CONSTRAINT "claim_documents_claim_id_fkey" FOREIGN KEY ("claim_id") REFERENCES "claims"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claim_document_files" ADD CONSTRAINT "claim_document_files_claim_id_fkey" FOREIGN KEY ("claim_id") REFERENCES "claims"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claim_document_files" ADD CONSTRAINT "claim_document_files_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "claim_documents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claim_reserve_movements" ADD CONSTRAINT "claim_reserve_movements_claim_id_fkey" FOREIGN KEY ("claim_id") REFERENCES "claims"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claim_payments" ADD CONSTRAINT "claim_payments_claim_id_fkey" FOREIGN KEY ("claim_id") REFERENCES "claims"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "prospects" ADD CONSTRAINT "prospects_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "prospects" ADD CONSTRAINT "prospects_assignee_user_id_fkey" FOREIGN KEY ("assignee_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "prospects" ADD CONSTRAINT "prospects_created_by_user_id_fkey" FOREIGN KEY ("created_by_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "prospect_notes" ADD CONSTRAINT "prospect_notes_prospect_id_fkey" FOREIGN KEY ("prospect_id") REFERENCES "prospects"("id") ON DELETE CASCADE ON UPDATE CASCADE;
