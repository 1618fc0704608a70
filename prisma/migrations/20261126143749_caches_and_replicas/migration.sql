-- AlterTable
ALTER TABLE "api_clients" ALTER COLUMN "rate_limit_per_minute" DROP NOT NULL,
ALTER COLUMN "rate_limit_per_minute" DROP DEFAULT;

-- CreateTable
CREATE TABLE "rating_versions" (
    "tenant_id" INTEGER NOT NULL,
    "version" BIGINT NOT NULL DEFAULT 1,
    "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rating_versions_pkey" PRIMARY KEY ("tenant_id")
);

-- CreateTable
CREATE TABLE "platform_secrets" (
    "name" TEXT NOT NULL,
    "sealed" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_secrets_pkey" PRIMARY KEY ("name")
);

-- AddForeignKey
ALTER TABLE "rating_versions" ADD CONSTRAINT "rating_versions_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Clients created before this migration carried the old column default, 60: they follow the deployment's default
-- (RATE_LIMIT_PER_MINUTE, itself 60 unless set) rather than an override nobody chose.
UPDATE "api_clients" SET "rate_limit_per_minute" = NULL WHERE "rate_limit_per_minute" = 60;

-- Exact cache invalidation (hand-written; src/db/cache-bus.ts listens). Every process keeps an organisation's rating
-- data and its callers' principals in memory; these triggers make any change to what those copies were built from,
-- by any code path or by hand, bump a version and announce itself on channel bima_cache in the same transaction.
-- NOTIFY is delivered at commit (never for a rollback), and PostgreSQL folds identical payloads of one transaction,
-- so a bulk change sends one message per organisation.
INSERT INTO "rating_versions" ("tenant_id") SELECT "id" FROM "tenants" ON CONFLICT DO NOTHING;

CREATE FUNCTION bima_rating_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  t integer := CASE WHEN TG_OP = 'DELETE' THEN OLD.tenant_id ELSE NEW.tenant_id END;
BEGIN
  INSERT INTO rating_versions (tenant_id, version, changed_at) VALUES (t, 1, now())
    ON CONFLICT (tenant_id) DO UPDATE SET version = rating_versions.version + 1, changed_at = now();
  PERFORM pg_notify('bima_cache', json_build_object('kind', 'rating', 'tenant', t)::text);
  RETURN NULL;
END $$;

CREATE FUNCTION bima_principal_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  t integer;
BEGIN
  IF TG_TABLE_NAME = 'tenants' THEN
    t := CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END;
  ELSE
    t := CASE WHEN TG_OP = 'DELETE' THEN OLD.tenant_id ELSE NEW.tenant_id END;
  END IF;
  PERFORM pg_notify('bima_cache', json_build_object('kind', 'principal', 'tenant', t)::text);
  RETURN NULL;
END $$;

DO $$
DECLARE tbl text;
BEGIN
  FOREACH tbl IN ARRAY ARRAY['insurers', 'levies', 'motor_products', 'motor_product_benefits', 'motor_rate_bands',
                             'motor_tonnage_bands', 'ipf_lenders', 'ipf_tenors', 'standard_products'] LOOP
    EXECUTE format('CREATE TRIGGER bima_rating_changed AFTER INSERT OR UPDATE OR DELETE ON %I
                    FOR EACH ROW EXECUTE FUNCTION bima_rating_changed()', tbl);
  END LOOP;
  -- A new token changes no cached principal; revoking or deleting one does. Any change to a key, a user (an acting
  -- user or an agent) or an organisation may change what a principal holds.
  CREATE TRIGGER bima_principal_changed AFTER UPDATE OR DELETE ON access_tokens
    FOR EACH ROW EXECUTE FUNCTION bima_principal_changed();
  FOREACH tbl IN ARRAY ARRAY['api_clients', 'users', 'tenants'] LOOP
    EXECUTE format('CREATE TRIGGER bima_principal_changed AFTER INSERT OR UPDATE OR DELETE ON %I
                    FOR EACH ROW EXECUTE FUNCTION bima_principal_changed()', tbl);
  END LOOP;
END $$;
