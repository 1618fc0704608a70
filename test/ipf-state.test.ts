import { describe, expect, it } from 'vitest';
import { InvalidStateError } from '../src/lib/problem.ts';
import {
  APPLICATION_STATUSES,
  APPLICATION_TRANSITIONS,
  assertIpfMove,
  canMoveIpf,
  LOAN_STATUSES,
  LOAN_TRANSITIONS,
  transitionIpf,
} from '../src/modules/finance/ipf-state.ts';
import { INSTANT_RAIL, useKit } from './kit.ts';
import { signedLoan } from './kit/ipf.ts';

/** The documented tables (docs/premium-finance.md "Premium finance", ipf-state.ts header), written out independently of the code. */
const DOCUMENTED = {
  application: {
    statuses: ['draft', 'submitted', 'approved', 'declined', 'signed', 'funded', 'cancelled', 'expired'],
    moves: [
      'draft>submitted',
      'draft>cancelled',
      'draft>expired',
      'submitted>approved',
      'submitted>declined',
      'submitted>cancelled',
      'approved>signed',
      'approved>cancelled',
      'approved>expired',
      'signed>funded',
      'signed>cancelled',
      'signed>expired',
    ],
    table: APPLICATION_TRANSITIONS as Record<string, readonly string[]>,
    listed: APPLICATION_STATUSES as string[],
  },
  loan: {
    statuses: ['awaiting_deposit', 'active', 'settled', 'defaulted', 'cancelled'],
    moves: ['awaiting_deposit>active', 'awaiting_deposit>cancelled', 'active>settled', 'active>defaulted'],
    table: LOAN_TRANSITIONS as Record<string, readonly string[]>,
    listed: LOAN_STATUSES as string[],
  },
} as const;

function refusal(fn: () => void): InvalidStateError {
  try {
    fn();
  } catch (e) {
    return e as InvalidStateError;
  }
  throw new Error('not refused');
}

describe.each(['application', 'loan'] as const)('the %s transition table', (entity) => {
  const d = DOCUMENTED[entity];
  const allowed = new Set<string>(d.moves);
  const pairs = d.statuses.flatMap((from) => d.statuses.map((to) => [from, to] as const));

  it.each(pairs)('%s → %s', (from, to) => {
    const ok = allowed.has(`${from}>${to}`);
    expect(canMoveIpf(entity, from, to)).toBe(ok);
    if (ok) {
      expect(() => assertIpfMove(entity, from, to)).not.toThrow();
      return;
    }
    const err = refusal(() => assertIpfMove(entity, from, to));
    expect(err).toBeInstanceOf(InvalidStateError);
    expect(err.code).toBe('invalid_state');
    expect(err.status).toBe(409);
    expect(err.extra?.[`${entity}_status`]).toBe(from);
    expect([...(err.extra?.allowed as string[])].sort()).toEqual(
      d.moves
        .filter((m) => m.startsWith(`${from}>`))
        .map((m) => m.split('>')[1])
        .sort(),
    );
  });

  it('lists every status and no other move', () => {
    expect([...d.listed].sort()).toEqual([...d.statuses].sort());
    expect(Object.entries(d.table).flatMap(([f, tos]) => tos.map((to) => `${f}>${to}`))).toEqual(
      expect.arrayContaining([...d.moves]),
    );
    expect(Object.values(d.table).flat()).toHaveLength(d.moves.length);
  });

  it('an unknown status is refused with nothing allowed', () => {
    expect(canMoveIpf(entity, 'nonsense', 'cancelled')).toBe(false);
    expect(refusal(() => assertIpfMove(entity, 'nonsense', 'cancelled')).extra).toMatchObject({ allowed: [] });
  });
});

describe('transitionIpf: the SQL guard and the history row', () => {
  const t = useKit(INSTANT_RAIL);
  const o = t.useOrg({ fast: true });

  const historyOf = (entityId: number) =>
    t.db.tenant(o.id, (tx) => tx.ipfStateHistory.findMany({ where: { entity: 'loan', entityId } }));
  const meta = (reason: string) => ({ tenantId: o.id, reason, actor: 'system' });

  it('of two writers moving the same loan from the same status, one moves it and one gets false', async () => {
    const { loan } = await signedLoan(o);
    const before = await historyOf(loan.id);
    const outcomes = await Promise.all(
      ['first', 'second'].map((who) =>
        t.db.tenant(o.id, (tx) =>
          transitionIpf(tx, 'loan', loan.id, 'awaiting_deposit', 'cancelled', meta(`writer ${who}`)),
        ),
      ),
    );
    expect(outcomes.sort()).toEqual([false, true]);
    const after = await historyOf(loan.id);
    expect(after).toHaveLength(before.length + 1);
    expect(after.at(-1)).toMatchObject({ fromStatus: 'awaiting_deposit', toStatus: 'cancelled', actor: 'system' });
    const row = await t.db.tenant(o.id, (tx) => tx.ipfLoan.findUniqueOrThrow({ where: { id: loan.id } }));
    expect(row.status).toBe('cancelled');

    // A writer that read the old status later still gets false, and writes no history.
    expect(
      await t.db.tenant(o.id, (tx) =>
        transitionIpf(tx, 'loan', loan.id, 'awaiting_deposit', 'active', meta('late writer')),
      ),
    ).toBe(false);
    expect(await historyOf(loan.id)).toHaveLength(after.length);
  }, 60_000);

  it('a move the table does not list is refused before any write', async () => {
    const { loan } = await signedLoan(o);
    await expect(
      t.db.tenant(o.id, (tx) => transitionIpf(tx, 'loan', loan.id, 'awaiting_deposit', 'settled', meta('no'))),
    ).rejects.toMatchObject({ code: 'invalid_state', extra: { loan_status: 'awaiting_deposit' } });
    const row = await t.db.tenant(o.id, (tx) => tx.ipfLoan.findUniqueOrThrow({ where: { id: loan.id } }));
    expect(row.status).toBe('awaiting_deposit');
    expect(await historyOf(loan.id)).toHaveLength(0);
  }, 60_000);
});
