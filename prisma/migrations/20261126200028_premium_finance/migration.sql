-- AlterTable
ALTER TABLE "credit_notes" ADD COLUMN     "refund_payee" TEXT NOT NULL DEFAULT 'client';

-- AlterTable
ALTER TABLE "ipf_lenders" ADD COLUMN     "default_grace_days" INTEGER NOT NULL DEFAULT 30,
ADD COLUMN     "deposit_bps" INTEGER,
ADD COLUMN     "deposit_rule" TEXT NOT NULL DEFAULT 'one_instalment',
ADD COLUMN     "max_instalment_to_income_bps" INTEGER NOT NULL DEFAULT 3000,
ADD COLUMN     "max_premium_minor" BIGINT,
ADD COLUMN     "pricing" TEXT NOT NULL DEFAULT 'rate_per_tenor';

-- AlterTable
ALTER TABLE "payment_requests" ADD COLUMN     "loan_id" INTEGER;

-- AlterTable
ALTER TABLE "policies" ADD COLUMN     "refunds_to" TEXT NOT NULL DEFAULT 'client';

-- AlterTable
ALTER TABLE "receipts" ADD COLUMN     "loan_id" INTEGER;

-- CreateTable
CREATE TABLE "ipf_fee_bands" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "lender_id" INTEGER NOT NULL,
    "up_to_premium_minor" BIGINT,
    "fee_minor" BIGINT NOT NULL,

    CONSTRAINT "ipf_fee_bands_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ipf_applications" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "uuid" UUID NOT NULL,
    "application_no" TEXT NOT NULL,
    "policy_id" INTEGER NOT NULL,
    "client_id" INTEGER NOT NULL,
    "lender_id" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'draft',
    "tenor_months" INTEGER NOT NULL,
    "premium_minor" BIGINT NOT NULL,
    "charge_minor" BIGINT NOT NULL,
    "deposit_minor" BIGINT NOT NULL,
    "instalment_minor" BIGINT NOT NULL,
    "total_repayable_minor" BIGINT NOT NULL,
    "apr_bps" INTEGER NOT NULL,
    "rating_version" INTEGER NOT NULL,
    "schedule" JSONB NOT NULL,
    "id_number" TEXT NOT NULL,
    "kra_pin" TEXT NOT NULL,
    "income_band" TEXT NOT NULL,
    "consent_at" TIMESTAMPTZ(3) NOT NULL,
    "decision_reasons" JSONB NOT NULL DEFAULT '[]',
    "lender_ref" TEXT,
    "decided_at" TIMESTAMPTZ(3),
    "agreement_text" TEXT,
    "agreement_sha256" TEXT,
    "signing_phone" TEXT,
    "signing_code_hash" TEXT,
    "signing_code_expires" TIMESTAMPTZ(3),
    "signing_code_sent_at" TIMESTAMPTZ(3),
    "signing_attempts" INTEGER NOT NULL DEFAULT 0,
    "signed_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "closed_reason" TEXT,
    "created_by_user_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ipf_applications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ipf_loans" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "uuid" UUID NOT NULL,
    "loan_no" TEXT NOT NULL,
    "application_id" INTEGER NOT NULL,
    "policy_id" INTEGER NOT NULL,
    "client_id" INTEGER NOT NULL,
    "lender_id" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'awaiting_deposit',
    "tenor_months" INTEGER NOT NULL,
    "principal_minor" BIGINT NOT NULL,
    "charge_minor" BIGINT NOT NULL,
    "total_repayable_minor" BIGINT NOT NULL,
    "apr_bps" INTEGER NOT NULL,
    "paid_minor" BIGINT NOT NULL DEFAULT 0,
    "rebate_minor" BIGINT NOT NULL DEFAULT 0,
    "settlement_payoff_minor" BIGINT,
    "settlement_rebate_minor" BIGINT,
    "settlement_valid_until" DATE,
    "lender_refund_minor" BIGINT NOT NULL DEFAULT 0,
    "disbursement_ref" TEXT,
    "signed_at" TIMESTAMPTZ(3) NOT NULL,
    "funded_at" TIMESTAMPTZ(3),
    "closed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ipf_loans_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ipf_instalments" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "loan_id" INTEGER NOT NULL,
    "seq" INTEGER NOT NULL,
    "due_on" DATE NOT NULL,
    "amount_minor" BIGINT NOT NULL,
    "paid_minor" BIGINT NOT NULL DEFAULT 0,
    "waived_minor" BIGINT NOT NULL DEFAULT 0,
    "reminded_at" TIMESTAMPTZ(3),
    "overdue_notified_at" TIMESTAMPTZ(3),

    CONSTRAINT "ipf_instalments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ipf_allocations" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "receipt_id" INTEGER NOT NULL,
    "loan_id" INTEGER NOT NULL,
    "instalment_id" INTEGER NOT NULL,
    "amount_minor" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ipf_allocations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ipf_lender_calls" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "application_id" INTEGER,
    "loan_id" INTEGER,
    "status" TEXT NOT NULL DEFAULT 'recorded',
    "request" JSONB NOT NULL,
    "response" JSONB,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "confirmed_at" TIMESTAMPTZ(3),

    CONSTRAINT "ipf_lender_calls_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ipf_state_history" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "entity" TEXT NOT NULL,
    "entity_id" INTEGER NOT NULL,
    "from_status" TEXT NOT NULL,
    "to_status" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ipf_state_history_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ipf_fee_bands_lender_id_idx" ON "ipf_fee_bands"("lender_id");

-- CreateIndex
CREATE UNIQUE INDEX "ipf_applications_uuid_key" ON "ipf_applications"("uuid");

-- CreateIndex
CREATE INDEX "ipf_applications_tenant_id_created_at_id_idx" ON "ipf_applications"("tenant_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "ipf_applications_policy_id_idx" ON "ipf_applications"("policy_id");

-- CreateIndex
CREATE UNIQUE INDEX "ipf_applications_tenant_id_application_no_key" ON "ipf_applications"("tenant_id", "application_no");

-- CreateIndex
CREATE UNIQUE INDEX "ipf_loans_uuid_key" ON "ipf_loans"("uuid");

-- CreateIndex
CREATE UNIQUE INDEX "ipf_loans_application_id_key" ON "ipf_loans"("application_id");

-- CreateIndex
CREATE INDEX "ipf_loans_tenant_id_created_at_id_idx" ON "ipf_loans"("tenant_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "ipf_loans_policy_id_idx" ON "ipf_loans"("policy_id");

-- CreateIndex
CREATE INDEX "ipf_loans_client_id_idx" ON "ipf_loans"("client_id");

-- CreateIndex
CREATE UNIQUE INDEX "ipf_loans_tenant_id_loan_no_key" ON "ipf_loans"("tenant_id", "loan_no");

-- CreateIndex
CREATE UNIQUE INDEX "ipf_instalments_loan_id_seq_key" ON "ipf_instalments"("loan_id", "seq");

-- CreateIndex
CREATE INDEX "ipf_allocations_loan_id_idx" ON "ipf_allocations"("loan_id");

-- CreateIndex
CREATE INDEX "ipf_allocations_receipt_id_idx" ON "ipf_allocations"("receipt_id");

-- CreateIndex
CREATE INDEX "ipf_lender_calls_application_id_idx" ON "ipf_lender_calls"("application_id");

-- CreateIndex
CREATE INDEX "ipf_lender_calls_loan_id_idx" ON "ipf_lender_calls"("loan_id");

-- CreateIndex
CREATE INDEX "ipf_state_history_entity_entity_id_idx" ON "ipf_state_history"("entity", "entity_id");

-- AddForeignKey
ALTER TABLE "ipf_fee_bands" ADD CONSTRAINT "ipf_fee_bands_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_fee_bands" ADD CONSTRAINT "ipf_fee_bands_lender_id_fkey" FOREIGN KEY ("lender_id") REFERENCES "ipf_lenders"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_applications" ADD CONSTRAINT "ipf_applications_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_applications" ADD CONSTRAINT "ipf_applications_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_applications" ADD CONSTRAINT "ipf_applications_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_applications" ADD CONSTRAINT "ipf_applications_lender_id_fkey" FOREIGN KEY ("lender_id") REFERENCES "ipf_lenders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_loans" ADD CONSTRAINT "ipf_loans_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_loans" ADD CONSTRAINT "ipf_loans_application_id_fkey" FOREIGN KEY ("application_id") REFERENCES "ipf_applications"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_loans" ADD CONSTRAINT "ipf_loans_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_loans" ADD CONSTRAINT "ipf_loans_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_loans" ADD CONSTRAINT "ipf_loans_lender_id_fkey" FOREIGN KEY ("lender_id") REFERENCES "ipf_lenders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_instalments" ADD CONSTRAINT "ipf_instalments_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_instalments" ADD CONSTRAINT "ipf_instalments_loan_id_fkey" FOREIGN KEY ("loan_id") REFERENCES "ipf_loans"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_allocations" ADD CONSTRAINT "ipf_allocations_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_allocations" ADD CONSTRAINT "ipf_allocations_receipt_id_fkey" FOREIGN KEY ("receipt_id") REFERENCES "receipts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_allocations" ADD CONSTRAINT "ipf_allocations_loan_id_fkey" FOREIGN KEY ("loan_id") REFERENCES "ipf_loans"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_allocations" ADD CONSTRAINT "ipf_allocations_instalment_id_fkey" FOREIGN KEY ("instalment_id") REFERENCES "ipf_instalments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_lender_calls" ADD CONSTRAINT "ipf_lender_calls_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_lender_calls" ADD CONSTRAINT "ipf_lender_calls_application_id_fkey" FOREIGN KEY ("application_id") REFERENCES "ipf_applications"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_lender_calls" ADD CONSTRAINT "ipf_lender_calls_loan_id_fkey" FOREIGN KEY ("loan_id") REFERENCES "ipf_loans"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_state_history" ADD CONSTRAINT "ipf_state_history_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Hand-written: the fee bands are rating data (the lenders' price), announced like the other rating tables.
CREATE TRIGGER bima_rating_changed AFTER INSERT OR UPDATE OR DELETE ON ipf_fee_bands
  FOR EACH ROW EXECUTE FUNCTION bima_rating_changed();

-- Money never negative; states only those the state machines know (src/modules/finance/*-state.ts).
ALTER TABLE ipf_applications ADD CONSTRAINT ipf_applications_status_check
  CHECK (status IN ('draft', 'submitted', 'approved', 'declined', 'signed', 'funded', 'cancelled', 'expired'));
ALTER TABLE ipf_loans ADD CONSTRAINT ipf_loans_status_check
  CHECK (status IN ('awaiting_deposit', 'active', 'settled', 'defaulted', 'cancelled'));
ALTER TABLE ipf_loans ADD CONSTRAINT ipf_loans_money_check
  CHECK (principal_minor > 0 AND charge_minor >= 0 AND paid_minor >= 0 AND rebate_minor >= 0
         AND lender_refund_minor >= 0 AND paid_minor + rebate_minor <= total_repayable_minor);
ALTER TABLE ipf_instalments ADD CONSTRAINT ipf_instalments_money_check
  CHECK (amount_minor > 0 AND paid_minor >= 0 AND waived_minor >= 0 AND paid_minor + waived_minor <= amount_minor);
ALTER TABLE ipf_allocations ADD CONSTRAINT ipf_allocations_amount_check CHECK (amount_minor > 0);
ALTER TABLE ipf_lenders ADD CONSTRAINT ipf_lenders_rules_check
  CHECK (pricing IN ('rate_per_tenor', 'flat_fee_by_band') AND deposit_rule IN ('one_instalment', 'percent')
         AND (deposit_rule = 'one_instalment' OR deposit_bps BETWEEN 1 AND 9999));
ALTER TABLE policies ADD CONSTRAINT policies_refunds_to_check CHECK (refunds_to IN ('client', 'lender'));
ALTER TABLE credit_notes ADD CONSTRAINT credit_notes_refund_payee_check CHECK (refund_payee IN ('client', 'lender'));
