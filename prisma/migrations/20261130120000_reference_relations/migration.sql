-- A record's reference columns (a client's branch, business source and prospect type, its people …) are answered from
-- the organisation's directory in memory (src/modules/reference/directory.ts `references`) instead of joined into the
-- record's statement. Business sources and prospect types join the directory, so a change to either announces
-- 'directory' in the changing transaction, like a branch's, and every process drops its copy at commit. A user's
-- change announces 'directory' too, so the directory no longer listens to 'principal', which every change to an
-- access token or an API client also announces (an organisation issuing tokens must not keep dropping its directory).
CREATE TRIGGER bima_directory_changed AFTER INSERT OR UPDATE OR DELETE ON business_sources
  FOR EACH ROW EXECUTE FUNCTION bima_directory_changed();

CREATE TRIGGER bima_directory_changed AFTER INSERT OR UPDATE OR DELETE ON prospect_types
  FOR EACH ROW EXECUTE FUNCTION bima_directory_changed();

CREATE TRIGGER bima_directory_changed AFTER INSERT OR UPDATE OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION bima_directory_changed();
