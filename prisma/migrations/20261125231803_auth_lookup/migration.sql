-- Authentication in one statement (hand-written): every request starts by resolving its bearer token, and doing
-- that as an interactive system transaction (BEGIN, set_config, one query per relation, COMMIT) cost more than most
-- operations themselves. This returns the token with its tenant, API client, acting user and (when asked for) the
-- agent named by X-Agent-Code, in one round trip.
--
-- The token row names the tenant, so nothing can be scoped before it is read: the lookup must see across tenants.
-- It does so through the function's SET clause rather than a set_config() in the body: PostgreSQL applies the
-- setting on entry and restores the caller's value on exit (error or not), so app.system never outlives this call,
-- whether it runs as its own implicit transaction or inside a caller's tenant transaction. Row-level security stays
-- the only gate: the function runs with the caller's rights (SECURITY INVOKER) and reads nothing but the one token.
-- Judging the row (expired, revoked, suspended, disabled, agent key) stays in src/auth/principal.ts.
CREATE FUNCTION app_authenticate(p_token_hash text, p_agent_code text DEFAULT NULL)
RETURNS TABLE (
  token_id integer,
  token_scopes text[],
  token_expires_at timestamptz,
  token_revoked_at timestamptz,
  tenant_id integer,
  tenant_code text,
  tenant_name text,
  tenant_type text,
  tenant_paybill text,
  tenant_status text,
  client_pk integer,
  client_id text,
  client_name text,
  client_scopes text[],
  client_rate_limit_per_minute integer,
  client_revoked_at timestamptz,
  key_user_is_actor boolean,
  key_user_id integer,
  key_user_name text,
  key_user_role text,
  key_user_agent_code text,
  key_user_branch_id integer,
  key_user_disabled boolean,
  agent_id integer,
  agent_name text,
  agent_role text,
  agent_code text,
  agent_branch_id integer,
  agent_disabled boolean,
  agent_key_hash text
)
LANGUAGE sql STABLE
SET app.system = 'on'
AS $$
  SELECT t.id, coalesce(t.scopes, '{}'), t.expires_at, t.revoked_at,
         tn.id, tn.code, tn.name, tn.type::text, tn.paybill, tn.status::text,
         c.id, c.client_id, c.name, coalesce(c.scopes, '{}'), c.rate_limit_per_minute, c.revoked_at,
         c.actor_user_id IS NOT NULL, ku.id, ku.name, ku.role::text, ku.agent_code, ku.branch_id, ku.disabled,
         ag.id, ag.name, ag.role::text, ag.agent_code, ag.branch_id, ag.disabled, ag.agent_key_hash
    FROM access_tokens t
    JOIN tenants tn ON tn.id = t.tenant_id
    JOIN api_clients c ON c.id = t.api_client_id
    LEFT JOIN users ku ON ku.id = coalesce(c.actor_user_id, c.created_by_user_id)
    LEFT JOIN users ag ON p_agent_code IS NOT NULL AND ag.tenant_id = t.tenant_id AND ag.agent_code = p_agent_code AND ag.role = 'agent'
   WHERE t.token_hash = p_token_hash
$$;
