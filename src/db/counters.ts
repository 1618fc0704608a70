import { randomUUID } from 'node:crypto';
import { Prisma } from '../generated/prisma/client.ts';
import type { Tx } from './client.ts';

/** Gap-free per-tenant numbers: the counter row stays locked until commit, and a rollback gives the number back. */
export async function nextNumber(tx: Tx, tenantId: number, name: string): Promise<bigint> {
  const rows = await tx.$queryRaw<{ value: bigint }[]>`
    INSERT INTO tenant_counters (tenant_id, name, value) VALUES (${tenantId}, ${name}, 1)
    ON CONFLICT (tenant_id, name) DO UPDATE SET value = tenant_counters.value + 1
    RETURNING value`;
  return rows[0].value;
}

/**
 * A sequence number as the numbers show it, in SQL (`drawn` names the counter's value in the statement that draws
 * it): at least six digits, zero-padded (`000123`), never cut when it outgrows them, as `lpad` alone would.
 */
export const sequenceSql = (drawn: string) =>
  Prisma.raw(`lpad(${drawn}::text, greatest(6, length(${drawn}::text)), '0')`);

/**
 * The next value of a tenant counter, as a CTE-ready statement fragment (`WITH n AS (<this>) …`): for the draws a
 * transaction makes last, writing the number where it belongs in the same statement.
 */
export const counterDraw = (tenantId: number, name: string) => Prisma.sql`
  INSERT INTO tenant_counters (tenant_id, name, value) VALUES (${tenantId}, ${name}, 1)
  ON CONFLICT (tenant_id, name) DO UPDATE SET value = tenant_counters.value + 1
  RETURNING value`;

/**
 * Numbers drawn last (issue 28). A counter row stays locked from the draw to COMMIT, so every transaction of the
 * organisation that needs the same counter waits that long: a bind that drew its client and policy numbers early held
 * them across ~17 statements. Instead its rows are written with this stand-in, unique and never committed, and the
 * numbers are drawn and written over it in one statement each just before the transaction ends.
 */
export const pendingNumber = (): string => `~pending-${randomUUID()}`;
