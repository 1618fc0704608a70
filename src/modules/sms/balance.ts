import { authorUserId, requireAbility } from '../../auth/principal.ts';
import type { Context } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { parseInput } from '../../lib/validate.ts';
import { ValidationError } from '../../lib/problem.ts';
import { z } from 'zod';
import { recordAudit } from '../audit/audit.service.ts';

/**
 * The organisation's SMS balance in units (one unit per segment per recipient), kept as a ledger: every change is a
 * line (topup, reserve, release) with the balance after it. The balance never goes negative: a reservation is one
 * guarded UPDATE … WHERE balance_units >= n, so concurrent sends cannot overdraw it.
 */

/** The organisation's account row, created on first use. */
export async function ensureAccount(tx: Tx, tenantId: number): Promise<void> {
  await tx.$executeRaw`INSERT INTO sms_accounts (tenant_id, balance_units, updated_at)
                       VALUES (${tenantId}, 0, now()) ON CONFLICT (tenant_id) DO NOTHING`;
}

/** Adds `units` (signed) and writes the ledger line; null when a debit would take the balance below zero. */
async function move(
  tx: Tx,
  tenantId: number,
  units: number,
  line: { kind: string; messageId?: number | null; reference?: string | null; reason?: string | null; actor?: number },
): Promise<number | null> {
  await ensureAccount(tx, tenantId);
  const rows = await tx.$queryRaw<{ balance_units: number }[]>`
    UPDATE sms_accounts SET balance_units = balance_units + ${units}, updated_at = now()
     WHERE tenant_id = ${tenantId} AND balance_units + ${units} >= 0
    RETURNING balance_units`;
  if (!rows.length) return null;
  const balanceAfter = Number(rows[0].balance_units);
  await tx.smsLedgerEntry.create({
    data: {
      tenantId,
      kind: line.kind,
      units,
      balanceAfter,
      messageId: line.messageId ?? null,
      reference: line.reference ?? null,
      reason: line.reason ?? null,
      actorUserId: line.actor ?? null,
    },
  });
  return balanceAfter;
}

/** Takes `units` for a message being recorded, or refuses with 422 on `to` (nothing is recorded: the caller rolls back). */
export async function reserveUnits(
  tx: Tx,
  tenantId: number,
  units: number,
  messageId: number,
  detail: string,
): Promise<void> {
  if (units === 0) return;
  const after = await move(tx, tenantId, -units, { kind: 'reserve', messageId });
  if (after != null) return;
  const account = await tx.smsAccount.findUnique({ where: { tenantId } });
  throw new ValidationError(
    [{ field: 'to', message: `the SMS balance (${account?.balanceUnits ?? 0} units) cannot cover ${detail}` }],
    `Insufficient SMS balance: ${detail} needed, ${account?.balanceUnits ?? 0} units left`,
  );
}

/** Gives back the units of a recipient the gateway refused for good. */
export async function releaseUnits(tx: Tx, tenantId: number, units: number, messageId: number, reason: string) {
  await move(tx, tenantId, units, { kind: 'release', messageId, reason: reason.slice(0, 200) });
}

const topUpSchema = z
  .object({
    units: z.number().int().min(1).max(10_000_000),
    reference: z.string().trim().min(1).max(100),
  })
  .strict();

/** A top-up (ability sms.manage): units bought from the SMS provider, recorded with its reference. */
export async function topUp(ctx: Context, input: unknown) {
  const p = ctx.principal!;
  const actor = requireAbility(p, 'sms.manage');
  const d = parseInput(topUpSchema, input);
  return ctx.tx(async (tx) => {
    const after = await move(tx, p.tenant.id, d.units, {
      kind: 'topup',
      reference: d.reference,
      actor: authorUserId(p, actor) ?? undefined,
    });
    await recordAudit(ctx, tx, p.tenant.id, {
      action: 'sms.topped_up',
      entityType: 'sms_account',
      entityId: String(p.tenant.id),
      changes: { units: d.units, reference: d.reference, balance_after: after },
    });
    return readBalance(tx, p.tenant.id);
  });
}

export interface SmsBalanceView {
  tenantId: number;
  balanceUnits: number;
}

export async function readBalance(tx: Tx, tenantId: number): Promise<SmsBalanceView> {
  const a = await tx.smsAccount.findUnique({ where: { tenantId } });
  return { tenantId, balanceUnits: a?.balanceUnits ?? 0 };
}

export function getBalance(ctx: Context): Promise<SmsBalanceView> {
  const p = ctx.principal!;
  return ctx.tx((tx) => readBalance(tx, p.tenant.id));
}

/** How many ledger lines one read may ask for (GraphQL `ledger(last:)`, REST `?ledger=`). */
export const LEDGER_LINES = { min: 1, max: 200 } as const;

/** The newest `take` ledger lines first; a count outside LEDGER_LINES is refused (out_of_range, naming `last`). */
export async function ledger(ctx: Context, tenantId: number, take: number) {
  if (take < LEDGER_LINES.min || take > LEDGER_LINES.max)
    throw new ValidationError([
      {
        field: 'last',
        code: 'out_of_range',
        message: `must be a whole number from ${LEDGER_LINES.min} to ${LEDGER_LINES.max}`,
      },
    ]);
  return ctx.tx((tx) => tx.smsLedgerEntry.findMany({ where: { tenantId }, orderBy: { id: 'desc' }, take }));
}
