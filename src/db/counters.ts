import type { Tx } from './client.ts';

/** Gap-free per-tenant numbers: the counter row stays locked until commit, and a rollback gives the number back. */
export async function nextNumber(tx: Tx, tenantId: number, name: string): Promise<bigint> {
  const rows = await tx.$queryRaw<{ value: bigint }[]>`
    INSERT INTO tenant_counters (tenant_id, name, value) VALUES (${tenantId}, ${name}, 1)
    ON CONFLICT (tenant_id, name) DO UPDATE SET value = tenant_counters.value + 1
    RETURNING value`;
  return rows[0].value;
}
