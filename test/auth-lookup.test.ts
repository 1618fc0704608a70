import { createHash } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useKit } from './kit.ts';

/**
 * app_authenticate() (migration auth_lookup) reads across tenants by running as the system work's role for the
 * length of the call (SECURITY DEFINER, src/db/tenancy.ts). These pin down that the role ends with the call, on a
 * real pooled connection: the next statement, or the rest of a caller's tenant transaction, is back under row-level
 * security.
 */
const t = useKit();
const [A, B] = t.useOrgs([{ tokens: ['staff'] }, { tokens: [] }]);
let tokenHash: string;
let conn: pg.PoolClient;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

beforeAll(async () => {
  tokenHash = sha256(A.tokens.staff);
  // One connection of the service's own pool (the non-bypassing role), so "the next statement" is on the same session.
  conn = await t.app.services.db.pool.connect();
});
afterAll(() => conn?.release());

const count = async (table: string) => Number((await conn.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n);
/** The role the connection's statements run as: the service's own, never the system work's, outside the call. */
const currentRole = async () => (await conn.query(`SELECT current_user AS v`)).rows[0].v as string;

describe('app_authenticate()', () => {
  it('returns the token joined with its tenant, client and acting user', async () => {
    const { rows } = await conn.query('SELECT * FROM app_authenticate($1, $2)', [tokenHash, A.agents[0].code]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      tenant_id: A.id,
      client_id: A.clients.staff.clientId,
      key_user_is_actor: true,
      key_user_id: A.users.exec.id,
      agent_code: A.agents[0].code,
      agent_id: A.agents[0].userId,
    });
    expect((await conn.query('SELECT * FROM app_authenticate($1)', ['0'.repeat(64)])).rows).toEqual([]);
  });

  it('leaves no system setting behind: the next statement on the connection sees no tenant rows', async () => {
    await conn.query('SELECT * FROM app_authenticate($1, NULL)', [tokenHash]);
    expect(await currentRole()).toBe('bima_app');
    expect(await count('insurers')).toBe(0);
    expect(await count('access_tokens')).toBe(0);
    expect(await count('tenants')).toBe(0);
  });

  it("inside a tenant transaction, restores the caller's settings: other tenants stay hidden afterwards", async () => {
    await conn.query('BEGIN');
    try {
      await conn.query(`SELECT set_config('app.tenant_id', $1, true)`, [String(B.id)]);
      const own = await count('insurers');
      expect(own).toBeGreaterThan(0);
      const { rows } = await conn.query('SELECT tenant_id FROM app_authenticate($1, NULL)', [tokenHash]);
      expect(rows).toEqual([{ tenant_id: A.id }]);
      expect(await currentRole()).toBe('bima_app');
      expect((await conn.query(`SELECT current_setting('app.tenant_id', true) AS v`)).rows[0].v).toBe(String(B.id));
      // Still only B's rows: A's insurers and A's token did not become visible.
      expect(await count('insurers')).toBe(own);
      expect(
        Number((await conn.query('SELECT count(*)::int AS n FROM insurers WHERE tenant_id = $1', [A.id])).rows[0].n),
      ).toBe(0);
      expect(await count('access_tokens')).toBe(
        Number(
          (await conn.query('SELECT count(*)::int AS n FROM access_tokens WHERE tenant_id = $1', [B.id])).rows[0].n,
        ),
      );
    } finally {
      await conn.query('ROLLBACK');
    }
  });

  it('an error inside a transaction that called it does not strand the setting either', async () => {
    await conn.query('BEGIN');
    await conn.query('SELECT * FROM app_authenticate($1, NULL)', [tokenHash]);
    await expect(conn.query('SELECT 1/0')).rejects.toThrow(/division by zero/);
    await conn.query('ROLLBACK');
    expect(await currentRole()).toBe('bima_app');
    expect(await count('insurers')).toBe(0);
  });
});
