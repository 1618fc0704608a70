import type { Database } from '../db/client.ts';
import { constantTimeEqual, sha256Hex } from '../lib/crypto.ts';
import { AppError } from '../lib/problem.ts';
import type { Principal } from './principal.ts';

/**
 * A customer signed in to the client area: a client of the bearer token's organisation, proven by `X-Client-No` plus
 * `X-Client-Key` (docs/client-area.md "Client area"). Client-area operations act only for this client, never for a number in the
 * body.
 */
export interface Customer {
  clientId: number;
  clientNo: string;
  keyId: number;
  /** app: from a client-area sign-in; policy: from a policy save (`portal.client_key`). */
  keyKind: 'app' | 'policy';
}

const INVALID = 'The client number and client key do not match a signed-in client of this organisation';

/**
 * Resolves the client headers against the token's organisation: the client's live keys are compared in constant time
 * (an unknown client number is compared against a throwaway hash, so both paths cost the same). Another organisation's
 * client, a revoked (replaced) key or a wrong one all answer 401 invalid_client_key alike.
 */
export async function authenticateCustomer(
  db: Database,
  principal: Principal,
  clientNo: string | null | undefined,
  clientKey: string | null | undefined,
): Promise<Customer> {
  const no = clientNo?.trim() ?? '';
  const key = clientKey?.trim() ?? '';
  if (!no || !key) {
    throw new AppError('invalid_client_key', { detail: 'Send X-Client-No and X-Client-Key together' });
  }
  const hash = sha256Hex(key);
  const client = await db.tenant(principal.tenant.id, (tx) =>
    tx.client.findUnique({
      where: { tenantId_clientNo: { tenantId: principal.tenant.id, clientNo: no } },
      select: {
        id: true,
        clientNo: true,
        keys: { where: { revokedAt: null }, select: { id: true, keyHash: true, kind: true } },
      },
    }),
  );
  let found: { id: number; kind: 'app' | 'policy' } | null = null;
  for (const k of client?.keys ?? []) if (constantTimeEqual(hash, k.keyHash)) found = k;
  if (!client?.keys.length) constantTimeEqual(hash, sha256Hex(`absent:${no}`));
  if (!client || !found) throw new AppError('invalid_client_key', { detail: INVALID });
  return { clientId: client.id, clientNo: client.clientNo, keyId: found.id, keyKind: found.kind };
}

/** The one gate of every client-area operation that acts for a customer: the signed-in client, or 401. */
export function requireCustomer(ctx: { customer?: Customer }): Customer {
  if (!ctx.customer) {
    throw new AppError('invalid_client_key', {
      detail: 'This operation acts for a signed-in client: send X-Client-No and X-Client-Key with the bearer token',
    });
  }
  return ctx.customer;
}
