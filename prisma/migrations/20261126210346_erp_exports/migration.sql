-- CreateIndex
CREATE INDEX "claims_tenant_id_updated_at_id_idx" ON "claims"("tenant_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "clients_tenant_id_updated_at_id_idx" ON "clients"("tenant_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "credit_notes_tenant_id_created_at_id_idx" ON "credit_notes"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "policies_tenant_id_updated_at_id_idx" ON "policies"("tenant_id", "updated_at", "id");

-- Hand-written: the ERP exports' incremental sync (README "ERP exports") pages on (updated_at, id), so updated_at
-- must move on every write, including the raw-SQL UPDATEs of the state machines that Prisma's @updatedAt never sees,
-- and must be the database's clock (never a client's), at or after the start of the writing transaction.
CREATE FUNCTION bima_touch_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := clock_timestamp();
  RETURN NEW;
END $$;
CREATE TRIGGER bima_touch_updated_at BEFORE INSERT OR UPDATE ON clients
  FOR EACH ROW EXECUTE FUNCTION bima_touch_updated_at();
CREATE TRIGGER bima_touch_updated_at BEFORE INSERT OR UPDATE ON policies
  FOR EACH ROW EXECUTE FUNCTION bima_touch_updated_at();
CREATE TRIGGER bima_touch_updated_at BEFORE INSERT OR UPDATE ON claims
  FOR EACH ROW EXECUTE FUNCTION bima_touch_updated_at();

-- The sync's watermark: no later than the start of the oldest transaction still open on this database (other than
-- the caller's), so a row written by a transaction in flight can never appear behind it later. SECURITY DEFINER
-- because the application role cannot read other sessions' xact_start in pg_stat_activity (it is NULL to a role
-- without the sessions' privileges or pg_read_all_stats); it returns one instant and nothing else.
CREATE FUNCTION bima_sync_horizon() RETURNS timestamptz LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = pg_catalog AS $$
  SELECT least(now(), min(a.xact_start))
    FROM pg_stat_activity a
   WHERE a.datname = current_database() AND a.state <> 'idle' AND a.xact_start IS NOT NULL
     AND a.backend_type = 'client backend' AND a.pid <> pg_backend_pid()
$$;
