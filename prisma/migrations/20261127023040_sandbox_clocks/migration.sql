-- CreateEnum
CREATE TYPE "SandboxClockStatus" AS ENUM ('ready', 'advancing');

-- AlterTable
ALTER TABLE "tenants" ADD COLUMN     "sandbox" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "sandbox_clocks" (
    "tenant_id" INTEGER NOT NULL,
    "offset_ms" BIGINT NOT NULL DEFAULT 0,
    "status" "SandboxClockStatus" NOT NULL DEFAULT 'ready',
    "advancing_to" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sandbox_clocks_pkey" PRIMARY KEY ("tenant_id")
);

-- CreateTable
CREATE TABLE "sandbox_clock_runs" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "uuid" UUID NOT NULL,
    "from_at" TIMESTAMPTZ(3) NOT NULL,
    "to_at" TIMESTAMPTZ(3) NOT NULL,
    "status" "SandboxClockStatus" NOT NULL DEFAULT 'advancing',
    "last_day" TEXT,
    "days_run" INTEGER NOT NULL DEFAULT 0,
    "counts" JSONB NOT NULL DEFAULT '{}',
    "requested_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "sandbox_clock_runs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "sandbox_clock_runs_uuid_key" ON "sandbox_clock_runs"("uuid");

-- CreateIndex
CREATE INDEX "sandbox_clock_runs_tenant_id_created_at_idx" ON "sandbox_clock_runs"("tenant_id", "created_at");

-- AddForeignKey
ALTER TABLE "sandbox_clocks" ADD CONSTRAINT "sandbox_clocks_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sandbox_clock_runs" ADD CONSTRAINT "sandbox_clock_runs_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sandbox_clock_runs" ADD CONSTRAINT "sandbox_clock_runs_clock_fkey" FOREIGN KEY ("tenant_id") REFERENCES "sandbox_clocks"("tenant_id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Hand-written (docs/operations.md "Sandbox clock"). A clock only moves forward, belongs only to a sandbox
-- organisation, and an organisation is a sandbox or not from its creation: no update can turn a live organisation's
-- business dates into something an API caller moves.
ALTER TABLE "sandbox_clocks" ADD CONSTRAINT "sandbox_clocks_forward" CHECK ("offset_ms" >= 0);
ALTER TABLE "sandbox_clocks" ADD CONSTRAINT "sandbox_clocks_advancing"
  CHECK (("status" = 'advancing') = ("advancing_to" IS NOT NULL));
ALTER TABLE "sandbox_clock_runs" ADD CONSTRAINT "sandbox_clock_runs_forward" CHECK ("to_at" > "from_at");

CREATE FUNCTION bima_sandbox_clock_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'tenants' THEN
    IF NEW.sandbox IS DISTINCT FROM OLD.sandbox THEN
      RAISE EXCEPTION 'an organisation is a sandbox or not from its creation (tenant %)', OLD.id;
    END IF;
    RETURN NEW;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM tenants WHERE id = NEW.tenant_id AND sandbox) THEN
    RAISE EXCEPTION 'tenant % is not a sandbox: it has no clock of its own', NEW.tenant_id;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.offset_ms < OLD.offset_ms THEN
    RAISE EXCEPTION 'a sandbox clock only moves forward (tenant %)', NEW.tenant_id;
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER sandbox_fixed BEFORE UPDATE OF sandbox ON tenants
  FOR EACH ROW EXECUTE FUNCTION bima_sandbox_clock_guard();
CREATE TRIGGER sandbox_clock_guard BEFORE INSERT OR UPDATE ON sandbox_clocks
  FOR EACH ROW EXECUTE FUNCTION bima_sandbox_clock_guard();

-- Every process keeps the offsets of sandbox clocks in memory (src/db/org-clocks.ts); any change is announced at
-- commit on bima_cache with the new offset, which each listener applies in commit order.
CREATE FUNCTION bima_clock_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  t integer := CASE WHEN TG_OP = 'DELETE' THEN OLD.tenant_id ELSE NEW.tenant_id END;
BEGIN
  PERFORM pg_notify('bima_cache', json_build_object(
    'kind', 'clock', 'tenant', t, 'offset_ms', CASE WHEN TG_OP = 'DELETE' THEN 0 ELSE NEW.offset_ms END)::text);
  RETURN NULL;
END $$;

CREATE TRIGGER bima_clock_changed AFTER INSERT OR UPDATE OF offset_ms OR DELETE ON sandbox_clocks
  FOR EACH ROW EXECUTE FUNCTION bima_clock_changed();
