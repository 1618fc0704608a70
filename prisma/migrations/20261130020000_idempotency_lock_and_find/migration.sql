-- An Idempotency-Key's lock and its stored answer in one round trip (issue 28: every marked write paid two, the lock
-- then the read). The advisory lock is taken first and the row read by a second statement of this VOLATILE function:
-- under READ COMMITTED each statement of a volatile function takes a fresh snapshot, so the read sees an answer that a
-- concurrent twin committed while this call waited on the lock. (One statement that locked and read would not: its
-- snapshot is taken before it waits.) Row-level security stays the gate: the function runs with the caller's rights.
CREATE FUNCTION app_idempotency_lock_and_find(p_api_client_id integer, p_key text)
RETURNS TABLE (
  id bigint,
  request_hash text,
  operation text,
  response_status integer,
  response_body text,
  expires_at timestamptz
)
LANGUAGE plpgsql VOLATILE SECURITY INVOKER AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(p_api_client_id, hashtext(p_key));
  RETURN QUERY
    SELECT k.id, k.request_hash, k.operation, k.response_status, k.response_body, k.expires_at
    FROM idempotency_keys k
    WHERE k.api_client_id = p_api_client_id AND k.key = p_key;
END
$$;
