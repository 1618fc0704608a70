-- DropForeignKey
ALTER TABLE "policies" DROP CONSTRAINT "policies_motor_product_id_fkey";

-- DropForeignKey
ALTER TABLE "quote_options" DROP CONSTRAINT "quote_options_motor_product_id_fkey";

-- AlterTable
ALTER TABLE "claims" ADD COLUMN     "risk_id" INTEGER;

-- AlterTable
ALTER TABLE "policies" ADD COLUMN     "cover_details" JSONB,
ADD COLUMN     "cover_product_id" INTEGER,
ALTER COLUMN "motor_product_id" DROP NOT NULL,
ALTER COLUMN "vehicle_class" DROP NOT NULL,
ALTER COLUMN "cover_type" DROP NOT NULL;

-- AlterTable
ALTER TABLE "policy_premium_items" ADD COLUMN     "risk_id" INTEGER,
ALTER COLUMN "vehicle_id" DROP NOT NULL;

-- AlterTable
ALTER TABLE "quote_options" ADD COLUMN     "cover_product_id" INTEGER,
ALTER COLUMN "motor_product_id" DROP NOT NULL;

-- CreateTable
CREATE TABLE "cover_products" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "insurer_id" INTEGER NOT NULL,
    "product_line" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "min_premium_minor" BIGINT NOT NULL DEFAULT 0,
    "max_instalments" INTEGER NOT NULL DEFAULT 1,
    "ipf_eligible" BOOLEAN NOT NULL DEFAULT false,
    "renewable" BOOLEAN NOT NULL DEFAULT true,
    "excess_text" TEXT NOT NULL DEFAULT '',
    "terms" JSONB NOT NULL DEFAULT '{}',
    "active" BOOLEAN NOT NULL DEFAULT true,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "cover_products_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cover_rates" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "cover_product_id" INTEGER NOT NULL,
    "rate_table" TEXT NOT NULL,
    "key" TEXT NOT NULL DEFAULT '',
    "from_value" BIGINT NOT NULL DEFAULT 0,
    "to_value" BIGINT,
    "rate_bps" INTEGER,
    "amount_minor" BIGINT,

    CONSTRAINT "cover_rates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "policy_risks" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "policy_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "relationship" TEXT,
    "date_of_birth" DATE,
    "age_years" INTEGER,
    "in_school" BOOLEAN,
    "id_no" TEXT,
    "sum_insured_minor" BIGINT,
    "details" JSONB,
    "status" TEXT NOT NULL DEFAULT 'active',
    "added_on" DATE,
    "removed_on" DATE,
    "added_by_endorsement_id" INTEGER,

    CONSTRAINT "policy_risks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "cover_products_tenant_id_insurer_id_product_line_code_key" ON "cover_products"("tenant_id", "insurer_id", "product_line", "code");

-- CreateIndex
CREATE INDEX "cover_rates_cover_product_id_idx" ON "cover_rates"("cover_product_id");

-- CreateIndex
CREATE INDEX "policy_risks_policy_id_idx" ON "policy_risks"("policy_id");

-- AddForeignKey
ALTER TABLE "cover_products" ADD CONSTRAINT "cover_products_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cover_products" ADD CONSTRAINT "cover_products_insurer_id_fkey" FOREIGN KEY ("insurer_id") REFERENCES "insurers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cover_rates" ADD CONSTRAINT "cover_rates_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cover_rates" ADD CONSTRAINT "cover_rates_cover_product_id_fkey" FOREIGN KEY ("cover_product_id") REFERENCES "cover_products"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "quote_options" ADD CONSTRAINT "quote_options_motor_product_id_fkey" FOREIGN KEY ("motor_product_id") REFERENCES "motor_products"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "quote_options" ADD CONSTRAINT "quote_options_cover_product_id_fkey" FOREIGN KEY ("cover_product_id") REFERENCES "cover_products"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policies" ADD CONSTRAINT "policies_motor_product_id_fkey" FOREIGN KEY ("motor_product_id") REFERENCES "motor_products"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policies" ADD CONSTRAINT "policies_cover_product_id_fkey" FOREIGN KEY ("cover_product_id") REFERENCES "cover_products"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policy_risks" ADD CONSTRAINT "policy_risks_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policy_risks" ADD CONSTRAINT "policy_risks_policy_id_fkey" FOREIGN KEY ("policy_id") REFERENCES "policies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policy_premium_items" ADD CONSTRAINT "policy_premium_items_risk_id_fkey" FOREIGN KEY ("risk_id") REFERENCES "policy_risks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claims" ADD CONSTRAINT "claims_risk_id_fkey" FOREIGN KEY ("risk_id") REFERENCES "policy_risks"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Hand-written. A policy is on exactly one product: a motor product or a cover product (medical, travel, standard).
ALTER TABLE "policies" ADD CONSTRAINT "policies_one_product"
  CHECK (("motor_product_id" IS NULL) <> ("cover_product_id" IS NULL));
ALTER TABLE "policies" ADD CONSTRAINT "policies_motor_class"
  CHECK ("motor_product_id" IS NULL OR ("vehicle_class" IS NOT NULL AND "cover_type" IS NOT NULL));
ALTER TABLE "quote_options" ADD CONSTRAINT "quote_options_one_product"
  CHECK (("motor_product_id" IS NULL) <> ("cover_product_id" IS NULL));
ALTER TABLE "policy_premium_items" ADD CONSTRAINT "policy_premium_items_one_subject"
  CHECK ("vehicle_id" IS NULL OR "risk_id" IS NULL);
ALTER TABLE "cover_products" ADD CONSTRAINT "cover_products_line"
  CHECK ("product_line" IN ('medical', 'travel', 'standard'));
ALTER TABLE "cover_products" ADD CONSTRAINT "cover_products_instalments" CHECK ("max_instalments" BETWEEN 1 AND 4);
ALTER TABLE "cover_rates" ADD CONSTRAINT "cover_rates_band" CHECK ("to_value" IS NULL OR "to_value" >= "from_value");
ALTER TABLE "cover_rates" ADD CONSTRAINT "cover_rates_figure"
  CHECK (("rate_bps" IS NOT NULL AND "rate_bps" >= 0) OR ("amount_minor" IS NOT NULL AND "amount_minor" >= 0));
ALTER TABLE "policy_risks" ADD CONSTRAINT "policy_risks_kind" CHECK ("kind" IN ('member', 'traveller', 'item'));
ALTER TABLE "policy_risks" ADD CONSTRAINT "policy_risks_sum_insured"
  CHECK ("sum_insured_minor" IS NULL OR "sum_insured_minor" >= 0);

-- Rating versions of cover products, as for motor products: any change of a product's figures or terms, or of its
-- rate rows, bumps cover_products.version (409 price_changed for a save priced on an older one).
CREATE FUNCTION bump_cover_product_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'cover_products' THEN
    IF (NEW.min_premium_minor, NEW.max_instalments, NEW.ipf_eligible, NEW.renewable, NEW.terms, NEW.active,
        NEW.product_line, NEW.code)
       IS DISTINCT FROM
       (OLD.min_premium_minor, OLD.max_instalments, OLD.ipf_eligible, OLD.renewable, OLD.terms, OLD.active,
        OLD.product_line, OLD.code) THEN
      NEW.version := OLD.version + 1;
    END IF;
    RETURN NEW;
  END IF;
  IF TG_OP = 'DELETE' THEN
    UPDATE cover_products SET version = version + 1 WHERE id = OLD.cover_product_id;
  ELSE
    UPDATE cover_products SET version = version + 1 WHERE id = NEW.cover_product_id;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER cover_products_version BEFORE UPDATE ON cover_products
  FOR EACH ROW EXECUTE FUNCTION bump_cover_product_version();
CREATE TRIGGER cover_rates_version AFTER INSERT OR UPDATE OR DELETE ON cover_rates
  FOR EACH ROW EXECUTE FUNCTION bump_cover_product_version();

-- Every process's cached rating data is dropped at commit when cover products or their rates change.
CREATE TRIGGER bima_rating_changed AFTER INSERT OR UPDATE OR DELETE ON cover_products
  FOR EACH ROW EXECUTE FUNCTION bima_rating_changed();
CREATE TRIGGER bima_rating_changed AFTER INSERT OR UPDATE OR DELETE ON cover_rates
  FOR EACH ROW EXECUTE FUNCTION bima_rating_changed();
