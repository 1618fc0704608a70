-- An STK push's Idempotency-Key: its lock and the look-up of the push an earlier use of the key made, in one round
-- trip (issue 28), as app_idempotency_lock_and_find does for the other marked writes: the look-up is a second
-- statement of this VOLATILE function, so under READ COMMITTED its snapshot is taken after the lock is granted and it
-- sees a push a twin committed while this call waited. Answers that push's id, or no row.
CREATE FUNCTION app_stk_push_lock_and_find(p_api_client_id integer, p_key text)
RETURNS TABLE (id uuid)
LANGUAGE plpgsql VOLATILE SECURITY INVOKER AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(p_api_client_id, hashtext('stk:' || p_key));
  RETURN QUERY
    SELECT r.id FROM payment_requests r WHERE r.api_client_id = p_api_client_id AND r.idempotency_key = p_key;
END
$$;
