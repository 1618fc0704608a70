-- The organisation's directory (its branches, and its account executives and sales people:
-- src/modules/reference/directory.ts) is kept in memory by every process, like the rating data (caches_and_replicas).
-- A user change already announces itself as 'principal'; a branch change announces 'directory', in the changing
-- transaction, so every process drops its copy at commit, whoever made the change.
CREATE FUNCTION bima_directory_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  t integer := CASE WHEN TG_OP = 'DELETE' THEN OLD.tenant_id ELSE NEW.tenant_id END;
BEGIN
  PERFORM pg_notify('bima_cache', json_build_object('kind', 'directory', 'tenant', t)::text);
  RETURN NULL;
END $$;

CREATE TRIGGER bima_directory_changed AFTER INSERT OR UPDATE OR DELETE ON branches
  FOR EACH ROW EXECUTE FUNCTION bima_directory_changed();
