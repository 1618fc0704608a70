-- AlterTable
ALTER TABLE "debit_notes" ADD COLUMN     "breakdown" JSONB,
ADD COLUMN     "credited_minor" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "endorsement_id" INTEGER,
ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'instalment';

-- AlterTable
ALTER TABLE "policies" ADD COLUMN     "renewal_notice_at" TIMESTAMPTZ(3),
ADD COLUMN     "renewal_of_id" INTEGER,
ADD COLUMN     "revision" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "status_changed_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "policy_vehicles" ADD COLUMN     "added_by_endorsement_id" INTEGER,
ADD COLUMN     "added_on" DATE,
ADD COLUMN     "removed_on" DATE,
ADD COLUMN     "status" TEXT NOT NULL DEFAULT 'active';

-- CreateTable
CREATE TABLE "policy_status_changes" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "policy_id" INTEGER NOT NULL,
    "from_status" "PolicyStatus",
    "to_status" "PolicyStatus" NOT NULL,
    "source" TEXT NOT NULL,
    "reason" TEXT,
    "actor_user_id" INTEGER,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "policy_status_changes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "policy_premium_items" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "policy_id" INTEGER NOT NULL,
    "vehicle_id" INTEGER NOT NULL,
    "annual_basic_minor" BIGINT NOT NULL,
    "from_date" DATE NOT NULL,
    "to_date" DATE NOT NULL,
    "endorsement_id" INTEGER,
    "ended_by_endorsement_id" INTEGER,
    "ended_by_cancellation_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "policy_premium_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "endorsements" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "uuid" UUID NOT NULL,
    "policy_id" INTEGER NOT NULL,
    "number" TEXT NOT NULL,
    "operation" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "effective_date" DATE NOT NULL,
    "changes" JSONB NOT NULL,
    "effect" JSONB NOT NULL,
    "basic_delta_minor" BIGINT NOT NULL,
    "taxes_delta_minor" BIGINT NOT NULL,
    "total_delta_minor" BIGINT NOT NULL,
    "product_version" INTEGER,
    "based_on_revision" INTEGER NOT NULL,
    "debit_note_id" INTEGER,
    "credit_note_id" INTEGER,
    "created_by_user_id" INTEGER,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "confirmed_at" TIMESTAMPTZ(3),
    "discarded_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "endorsements_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "credit_notes" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "policy_id" INTEGER NOT NULL,
    "number" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "endorsement_id" INTEGER,
    "cancellation_id" INTEGER,
    "amount_minor" BIGINT NOT NULL,
    "basic_minor" BIGINT NOT NULL,
    "taxes_minor" BIGINT NOT NULL,
    "breakdown" JSONB NOT NULL,
    "applied_minor" BIGINT NOT NULL DEFAULT 0,
    "applications" JSONB NOT NULL DEFAULT '[]',
    "refunded_minor" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credit_notes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cancellations" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "uuid" UUID NOT NULL,
    "policy_id" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'quoted',
    "reason" TEXT NOT NULL,
    "requested_by" TEXT NOT NULL,
    "note" TEXT,
    "effective_date" DATE NOT NULL,
    "based_on_revision" INTEGER NOT NULL,
    "refund" JSONB NOT NULL,
    "unearned_minor" BIGINT NOT NULL,
    "refund_minor" BIGINT NOT NULL,
    "credit_note_id" INTEGER,
    "reinstatement_note_id" INTEGER,
    "created_by_user_id" INTEGER,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "confirmed_at" TIMESTAMPTZ(3),
    "reinstated_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "cancellations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "certificates" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "uuid" UUID NOT NULL,
    "policy_id" INTEGER NOT NULL,
    "vehicle_id" INTEGER NOT NULL,
    "stage" INTEGER NOT NULL,
    "stage_count" INTEGER NOT NULL,
    "series" INTEGER NOT NULL DEFAULT 1,
    "certificate_class" TEXT NOT NULL,
    "cover_code" INTEGER NOT NULL,
    "start_date" DATE NOT NULL,
    "end_date" DATE NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "certificate_no" TEXT,
    "registry_ref" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "error_code" TEXT,
    "error_message" TEXT,
    "issued_at" TIMESTAMPTZ(3),
    "cancelled_at" TIMESTAMPTZ(3),
    "cancel_reason_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "certificates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "renewal_quotes" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "uuid" UUID NOT NULL,
    "policy_id" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'quoted',
    "start_date" DATE NOT NULL,
    "end_date" DATE NOT NULL,
    "product_version" INTEGER NOT NULL,
    "basic_minor" BIGINT NOT NULL,
    "taxes_minor" BIGINT NOT NULL,
    "total_minor" BIGINT NOT NULL,
    "figures" JSONB NOT NULL,
    "valid_until" DATE NOT NULL,
    "new_policy_id" INTEGER,
    "created_by_user_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "renewal_quotes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "registry_sim_certificates" (
    "certificate_no" TEXT NOT NULL,
    "member_company_id" INTEGER NOT NULL,
    "registration" TEXT NOT NULL,
    "chassis" TEXT NOT NULL,
    "start_date" DATE NOT NULL,
    "end_date" DATE NOT NULL,
    "status" TEXT NOT NULL,
    "record" JSONB NOT NULL,
    "issued_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "registry_sim_certificates_pkey" PRIMARY KEY ("certificate_no")
);

-- CreateTable
CREATE TABLE "registry_sim_stock" (
    "member_company_id" INTEGER NOT NULL,
    "certificate_class" TEXT NOT NULL,
    "available" INTEGER NOT NULL,

    CONSTRAINT "registry_sim_stock_pkey" PRIMARY KEY ("member_company_id","certificate_class")
);

-- CreateIndex
CREATE INDEX "policy_status_changes_policy_id_id_idx" ON "policy_status_changes"("policy_id", "id");

-- CreateIndex
CREATE INDEX "policy_premium_items_policy_id_idx" ON "policy_premium_items"("policy_id");

-- CreateIndex
CREATE UNIQUE INDEX "endorsements_uuid_key" ON "endorsements"("uuid");

-- CreateIndex
CREATE INDEX "endorsements_policy_id_idx" ON "endorsements"("policy_id");

-- CreateIndex
CREATE UNIQUE INDEX "endorsements_tenant_id_number_key" ON "endorsements"("tenant_id", "number");

-- CreateIndex
CREATE INDEX "credit_notes_policy_id_idx" ON "credit_notes"("policy_id");

-- CreateIndex
CREATE UNIQUE INDEX "credit_notes_tenant_id_number_key" ON "credit_notes"("tenant_id", "number");

-- CreateIndex
CREATE UNIQUE INDEX "cancellations_uuid_key" ON "cancellations"("uuid");

-- CreateIndex
CREATE INDEX "cancellations_policy_id_idx" ON "cancellations"("policy_id");

-- CreateIndex
CREATE UNIQUE INDEX "certificates_uuid_key" ON "certificates"("uuid");

-- CreateIndex
CREATE UNIQUE INDEX "certificates_certificate_no_key" ON "certificates"("certificate_no");

-- CreateIndex
CREATE INDEX "certificates_tenant_id_status_idx" ON "certificates"("tenant_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "certificates_policy_id_vehicle_id_stage_series_key" ON "certificates"("policy_id", "vehicle_id", "stage", "series");

-- CreateIndex
CREATE UNIQUE INDEX "renewal_quotes_uuid_key" ON "renewal_quotes"("uuid");

-- CreateIndex
CREATE UNIQUE INDEX "renewal_quotes_new_policy_id_key" ON "renewal_quotes"("new_policy_id");

-- CreateIndex
CREATE INDEX "renewal_quotes_policy_id_idx" ON "renewal_quotes"("policy_id");

-- CreateIndex
CREATE INDEX "registry_sim_certificates_registration_idx" ON "registry_sim_certificates"("registration");

-- CreateIndex
CREATE INDEX "registry_sim_certificates_chassis_idx" ON "registry_sim_certificates"("chassis");

-- CreateIndex
CREATE UNIQUE INDEX "policies_renewal_of_id_key" ON "policies"("renewal_of_id");

-- AddForeignKey
ALTER TABLE "policies" ADD CONSTRAINT "policies_renewal_of_id_fkey" FOREIGN KEY ("renewal_of_id") REFERENCES "policies"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policy_status_changes" ADD CONSTRAINT "policy_status_changes_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policy_premium_items" ADD CONSTRAINT "policy_premium_items_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policy_premium_items" ADD CONSTRAINT "policy_premium_items_vehicle_id_fkey" FOREIGN KEY ("vehicle_id") REFERENCES "policy_vehicles"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "endorsements" ADD CONSTRAINT "endorsements_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "endorsements" ADD CONSTRAINT "endorsements_debit_note_id_fkey" FOREIGN KEY ("debit_note_id") REFERENCES "debit_notes"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "endorsements" ADD CONSTRAINT "endorsements_credit_note_id_fkey" FOREIGN KEY ("credit_note_id") REFERENCES "credit_notes"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cancellations" ADD CONSTRAINT "cancellations_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cancellations" ADD CONSTRAINT "cancellations_credit_note_id_fkey" FOREIGN KEY ("credit_note_id") REFERENCES "credit_notes"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cancellations" ADD CONSTRAINT "cancellations_reinstatement_note_id_fkey" FOREIGN KEY ("reinstatement_note_id") REFERENCES "debit_notes"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "certificates" ADD CONSTRAINT "certificates_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "certificates" ADD CONSTRAINT "certificates_vehicle_id_fkey" FOREIGN KEY ("vehicle_id") REFERENCES "policy_vehicles"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "renewal_quotes" ADD CONSTRAINT "renewal_quotes_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "renewal_quotes" ADD CONSTRAINT "renewal_quotes_new_policy_id_fkey" FOREIGN KEY ("new_policy_id") REFERENCES "policies"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Backfill (hand-written): existing vehicles are on cover from the policy start with the policy's basic premium
-- (one vehicle per bound policy until now), and each policy's history starts with the statuses it has reached.
UPDATE "policy_vehicles" v SET "added_on" = p."start_date" FROM "policies" p WHERE p."id" = v."policy_id" AND v."added_on" IS NULL;
INSERT INTO "policy_premium_items" ("tenant_id", "policy_id", "vehicle_id", "annual_basic_minor", "from_date", "to_date")
SELECT p."tenant_id", p."id", v."id", p."basic_minor", p."start_date", p."end_date"
FROM "policies" p JOIN "policy_vehicles" v ON v."policy_id" = p."id";
INSERT INTO "policy_status_changes" ("tenant_id", "policy_id", "from_status", "to_status", "source", "at")
SELECT "tenant_id", "id", NULL, 'pending_payment', 'bind', "created_at" FROM "policies";
INSERT INTO "policy_status_changes" ("tenant_id", "policy_id", "from_status", "to_status", "source", "at")
SELECT "tenant_id", "id", 'pending_payment', "status", 'payment', "updated_at" FROM "policies" WHERE "status" <> 'pending_payment';
