-- CreateEnum
CREATE TYPE "QuoteStatus" AS ENUM ('presented', 'accepted', 'expired');

-- CreateEnum
CREATE TYPE "PolicyStatus" AS ENUM ('pending_payment', 'active', 'cancelled', 'expired', 'lapsed', 'renewed', 'not_taken_up');

-- CreateEnum
CREATE TYPE "PaymentMode" AS ENUM ('full', 'ipf');

-- CreateEnum
CREATE TYPE "ClientKeyKind" AS ENUM ('app', 'policy');

-- AlterTable
ALTER TABLE "motor_products" ADD COLUMN     "flat_premium_minor" BIGINT,
ADD COLUMN     "ipf_eligible" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "max_instalments" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "max_vehicle_age_years" INTEGER,
ADD COLUMN     "min_premium_minor" BIGINT,
ADD COLUMN     "pll_per_seat_minor" BIGINT NOT NULL DEFAULT 50000,
ADD COLUMN     "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- CreateTable
CREATE TABLE "motor_rate_bands" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "motor_product_id" INTEGER NOT NULL,
    "up_to_value_minor" BIGINT,
    "rate_bps" INTEGER NOT NULL,

    CONSTRAINT "motor_rate_bands_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "motor_tonnage_bands" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "motor_product_id" INTEGER NOT NULL,
    "up_to_tonnes_milli" INTEGER,
    "premium_minor" BIGINT NOT NULL,

    CONSTRAINT "motor_tonnage_bands_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ipf_lenders" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "min_premium_minor" BIGINT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "ipf_lenders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ipf_tenors" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "lender_id" INTEGER NOT NULL,
    "months" INTEGER NOT NULL,
    "charge_bps" INTEGER NOT NULL,

    CONSTRAINT "ipf_tenors_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "quotes" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "uuid" UUID NOT NULL,
    "quote_no" TEXT NOT NULL,
    "client_id" INTEGER NOT NULL,
    "product_line" TEXT NOT NULL,
    "status" "QuoteStatus" NOT NULL DEFAULT 'presented',
    "valid_until" DATE NOT NULL,
    "request" JSONB NOT NULL,
    "vehicle" JSONB NOT NULL,
    "created_by_user_id" INTEGER,
    "created_by_api_client_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "quotes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "quote_options" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "quote_id" INTEGER NOT NULL,
    "insurer_id" INTEGER NOT NULL,
    "motor_product_id" INTEGER NOT NULL,
    "product_version" INTEGER NOT NULL,
    "rate_bps" INTEGER,
    "basic_minor" BIGINT NOT NULL,
    "taxes_minor" BIGINT NOT NULL,
    "total_minor" BIGINT NOT NULL,
    "detail" JSONB NOT NULL,

    CONSTRAINT "quote_options_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "policies" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "uuid" UUID NOT NULL,
    "policy_no" TEXT NOT NULL,
    "risk_note" TEXT NOT NULL,
    "client_id" INTEGER NOT NULL,
    "insurer_id" INTEGER NOT NULL,
    "motor_product_id" INTEGER NOT NULL,
    "product_version" INTEGER NOT NULL,
    "quote_id" INTEGER,
    "product_line" TEXT NOT NULL,
    "status" "PolicyStatus" NOT NULL DEFAULT 'pending_payment',
    "vehicle_class" "VehicleClass" NOT NULL,
    "cover_type" "CoverType" NOT NULL,
    "cover_period" TEXT NOT NULL,
    "days" INTEGER NOT NULL,
    "start_date" DATE NOT NULL,
    "end_date" DATE NOT NULL,
    "payment_mode" "PaymentMode" NOT NULL DEFAULT 'full',
    "instalment_count" INTEGER NOT NULL,
    "rate_bps" INTEGER,
    "basic_minor" BIGINT NOT NULL,
    "taxes_minor" BIGINT NOT NULL,
    "total_minor" BIGINT NOT NULL,
    "limits_of_liability" JSONB,
    "sales_person_id" INTEGER,
    "created_by_user_id" INTEGER,
    "created_by_api_client_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "policies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "policy_vehicles" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "policy_id" INTEGER NOT NULL,
    "reg_no" TEXT NOT NULL,
    "chassis_no" TEXT,
    "engine_no" TEXT,
    "make" TEXT,
    "model" TEXT,
    "year_of_manufacture" INTEGER NOT NULL,
    "value_minor" BIGINT,
    "body_type" TEXT,
    "tonnes_milli" INTEGER,
    "pll" INTEGER,
    "coverage" TEXT,
    "benefits" JSONB,

    CONSTRAINT "policy_vehicles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "policy_taxes" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "policy_id" INTEGER NOT NULL,
    "code" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "amount_minor" BIGINT NOT NULL,

    CONSTRAINT "policy_taxes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "debit_notes" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "policy_id" INTEGER NOT NULL,
    "number" TEXT NOT NULL,
    "instalment_no" INTEGER NOT NULL,
    "instalment_count" INTEGER NOT NULL,
    "due_on" DATE NOT NULL,
    "amount_minor" BIGINT NOT NULL,
    "paid_minor" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "debit_notes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "client_keys" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "client_id" INTEGER NOT NULL,
    "key_hash" TEXT NOT NULL,
    "kind" "ClientKeyKind" NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "client_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "motor_rate_bands_motor_product_id_idx" ON "motor_rate_bands"("motor_product_id");

-- CreateIndex
CREATE INDEX "motor_tonnage_bands_motor_product_id_idx" ON "motor_tonnage_bands"("motor_product_id");

-- CreateIndex
CREATE UNIQUE INDEX "ipf_lenders_tenant_id_name_key" ON "ipf_lenders"("tenant_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "ipf_tenors_lender_id_months_key" ON "ipf_tenors"("lender_id", "months");

-- CreateIndex
CREATE UNIQUE INDEX "quotes_uuid_key" ON "quotes"("uuid");

-- CreateIndex
CREATE INDEX "quotes_tenant_id_client_id_idx" ON "quotes"("tenant_id", "client_id");

-- CreateIndex
CREATE UNIQUE INDEX "quotes_tenant_id_quote_no_key" ON "quotes"("tenant_id", "quote_no");

-- CreateIndex
CREATE INDEX "quote_options_quote_id_idx" ON "quote_options"("quote_id");

-- CreateIndex
CREATE UNIQUE INDEX "policies_uuid_key" ON "policies"("uuid");

-- CreateIndex
CREATE INDEX "policies_tenant_id_client_id_idx" ON "policies"("tenant_id", "client_id");

-- CreateIndex
CREATE INDEX "policies_tenant_id_status_idx" ON "policies"("tenant_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "policies_tenant_id_policy_no_key" ON "policies"("tenant_id", "policy_no");

-- CreateIndex
CREATE INDEX "policy_vehicles_tenant_id_reg_no_idx" ON "policy_vehicles"("tenant_id", "reg_no");

-- CreateIndex
CREATE INDEX "policy_vehicles_policy_id_idx" ON "policy_vehicles"("policy_id");

-- CreateIndex
CREATE INDEX "policy_taxes_policy_id_idx" ON "policy_taxes"("policy_id");

-- CreateIndex
CREATE INDEX "debit_notes_policy_id_idx" ON "debit_notes"("policy_id");

-- CreateIndex
CREATE UNIQUE INDEX "debit_notes_tenant_id_number_key" ON "debit_notes"("tenant_id", "number");

-- CreateIndex
CREATE UNIQUE INDEX "client_keys_key_hash_key" ON "client_keys"("key_hash");

-- CreateIndex
CREATE INDEX "client_keys_client_id_idx" ON "client_keys"("client_id");

-- AddForeignKey
ALTER TABLE "motor_rate_bands" ADD CONSTRAINT "motor_rate_bands_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "motor_rate_bands" ADD CONSTRAINT "motor_rate_bands_motor_product_id_fkey" FOREIGN KEY ("motor_product_id") REFERENCES "motor_products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "motor_tonnage_bands" ADD CONSTRAINT "motor_tonnage_bands_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "motor_tonnage_bands" ADD CONSTRAINT "motor_tonnage_bands_motor_product_id_fkey" FOREIGN KEY ("motor_product_id") REFERENCES "motor_products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_lenders" ADD CONSTRAINT "ipf_lenders_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_tenors" ADD CONSTRAINT "ipf_tenors_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ipf_tenors" ADD CONSTRAINT "ipf_tenors_lender_id_fkey" FOREIGN KEY ("lender_id") REFERENCES "ipf_lenders"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "quotes" ADD CONSTRAINT "quotes_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "quotes" ADD CONSTRAINT "quotes_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "quotes" ADD CONSTRAINT "quotes_created_by_user_id_fkey" FOREIGN KEY ("created_by_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "quote_options" ADD CONSTRAINT "quote_options_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "quote_options" ADD CONSTRAINT "quote_options_quote_id_fkey" FOREIGN KEY ("quote_id") REFERENCES "quotes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "quote_options" ADD CONSTRAINT "quote_options_insurer_id_fkey" FOREIGN KEY ("insurer_id") REFERENCES "insurers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "quote_options" ADD CONSTRAINT "quote_options_motor_product_id_fkey" FOREIGN KEY ("motor_product_id") REFERENCES "motor_products"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policies" ADD CONSTRAINT "policies_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policies" ADD CONSTRAINT "policies_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policies" ADD CONSTRAINT "policies_insurer_id_fkey" FOREIGN KEY ("insurer_id") REFERENCES "insurers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policies" ADD CONSTRAINT "policies_motor_product_id_fkey" FOREIGN KEY ("motor_product_id") REFERENCES "motor_products"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policies" ADD CONSTRAINT "policies_quote_id_fkey" FOREIGN KEY ("quote_id") REFERENCES "quotes"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policies" ADD CONSTRAINT "policies_sales_person_id_fkey" FOREIGN KEY ("sales_person_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policies" ADD CONSTRAINT "policies_created_by_user_id_fkey" FOREIGN KEY ("created_by_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policy_vehicles" ADD CONSTRAINT "policy_vehicles_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policy_vehicles" ADD CONSTRAINT "policy_vehicles_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policy_taxes" ADD CONSTRAINT "policy_taxes_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policy_taxes" ADD CONSTRAINT "policy_taxes_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "debit_notes" ADD CONSTRAINT "debit_notes_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "debit_notes" ADD CONSTRAINT "debit_notes_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "client_keys" ADD CONSTRAINT "client_keys_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "client_keys" ADD CONSTRAINT "client_keys_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Rating versions (hand-written): any change of a motor product's rating figures, or of its rate or tonnage bands,
-- bumps motor_products.version, so a bind priced on an older version is detected (409 price_changed).
CREATE FUNCTION bump_motor_product_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'motor_products' THEN
    IF (NEW.min_premium_minor, NEW.flat_premium_minor, NEW.pll_per_seat_minor, NEW.max_instalments, NEW.ipf_eligible,
        NEW.max_vehicle_age_years, NEW.vehicle_class, NEW.cover_type)
       IS DISTINCT FROM
       (OLD.min_premium_minor, OLD.flat_premium_minor, OLD.pll_per_seat_minor, OLD.max_instalments, OLD.ipf_eligible,
        OLD.max_vehicle_age_years, OLD.vehicle_class, OLD.cover_type) THEN
      NEW.version := OLD.version + 1;
    END IF;
    RETURN NEW;
  END IF;
  IF TG_OP = 'DELETE' THEN
    UPDATE motor_products SET version = version + 1 WHERE id = OLD.motor_product_id;
  ELSE
    UPDATE motor_products SET version = version + 1 WHERE id = NEW.motor_product_id;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER motor_products_version BEFORE UPDATE ON motor_products
  FOR EACH ROW EXECUTE FUNCTION bump_motor_product_version();
CREATE TRIGGER motor_rate_bands_version AFTER INSERT OR UPDATE OR DELETE ON motor_rate_bands
  FOR EACH ROW EXECUTE FUNCTION bump_motor_product_version();
CREATE TRIGGER motor_tonnage_bands_version AFTER INSERT OR UPDATE OR DELETE ON motor_tonnage_bands
  FOR EACH ROW EXECUTE FUNCTION bump_motor_product_version();
