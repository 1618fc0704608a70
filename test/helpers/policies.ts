import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { TestApp } from './app.ts';

/**
 * Copies one bound policy `n` times (vehicles, levy lines, debit notes), so pagination and query counting have
 * volume without binding through the rate-limited API.
 */
export async function clonePolicies(t: TestApp, tenantId: number, uuid: string, n: number) {
  await t.db.tenant(tenantId, async (tx) => {
    const src = await tx.policy.findFirstOrThrow({
      where: { uuid },
      include: { vehicles: true, taxes: true, debitNotes: true },
    });
    const {
      id: _id,
      vehicles,
      taxes,
      debitNotes,
      createdAt: _c,
      updatedAt: _u,
      limitsOfLiability,
      coverDetails,
      ...base
    } = src;
    for (let i = 1; i <= n; i += 1) {
      const policyNo = `${src.policyNo}-C${i}`;
      await tx.policy.create({
        data: {
          ...base,
          limitsOfLiability: limitsOfLiability ?? undefined,
          coverDetails: coverDetails ?? undefined,
          uuid: randomUUID(),
          policyNo,
          status: 'pending_payment',
          vehicles: {
            create: vehicles.map(({ id: _v, policyId: _p, benefits, ...v }) => ({
              ...v,
              benefits: benefits ?? undefined,
              regNo: `KZZ${String(i).padStart(3, '0')}A`,
            })),
          },
          taxes: { create: taxes.map(({ id: _x, policyId: _p, ...x }) => x) },
          debitNotes: {
            create: debitNotes.map(({ id: _d, policyId: _p, createdAt: _dc, breakdown: _b, ...d }) => ({
              ...d,
              paidMinor: 0n,
              number: `DN-${policyNo}-${d.instalmentNo}/${d.instalmentCount}`,
            })),
          },
        },
      });
    }
  });
}

// Data loads only: the app's other statements (auth, tenancy settings, rate limits) don't depend on row counts anyway,
// and this keeps any background job sharing the pool out of the count.
const DATA_TABLES =
  /"(policies|policy_vehicles|policy_taxes|debit_notes|receipts|receipt_allocations|clients|insurers|users)"/;
const wrapped = new WeakSet<pg.PoolClient>();
let counter: { n: number; tables: RegExp } | null = null;

/**
 * Statements on the app's own pool (the one serving requests) while `fn` runs that match `tables` (by default the
 * policy data loads).
 */
export async function countStatements(
  t: TestApp,
  fn: () => Promise<void>,
  tables: RegExp = DATA_TABLES,
): Promise<number> {
  const pool = t.app.services.db.pool;
  if (!(pool as any).__statementCounter) {
    (pool as any).__statementCounter = true;
    // 'acquire' fires on every checkout, so connections opened before this hook are wrapped too.
    pool.on('acquire', (client) => {
      if (wrapped.has(client)) return;
      wrapped.add(client);
      const orig = client.query.bind(client) as (...a: unknown[]) => unknown;
      (client as any).query = (...args: unknown[]) => {
        const q = args[0] as string | { text?: string };
        const text = typeof q === 'string' ? q : (q?.text ?? '');
        if (counter && counter.tables.test(text)) counter.n += 1;
        return orig(...args);
      };
    });
  }
  const c = { n: 0, tables };
  counter = c;
  try {
    await fn();
  } finally {
    counter = null;
  }
  return c.n;
}
