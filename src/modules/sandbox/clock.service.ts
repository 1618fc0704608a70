import { randomUUID } from 'node:crypto';
import type { Principal } from '../../auth/principal.ts';
import { requireAbility } from '../../auth/principal.ts';
import type { Context } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import type { SandboxClock, SandboxClockRun } from '../../generated/prisma/client.ts';
import { serviceNow } from '../../lib/clock.ts';
import { todayNairobi } from '../../lib/dates.ts';
import { AppError, InvalidStateError } from '../../lib/problem.ts';
import { actorLabel, recordAudit } from '../audit/audit.service.ts';
import { targetProblem } from './clock.ts';

/** A sandbox clock as the API shows it: where it stands now, and the advance in hand or last made. */
export interface ClockView {
  clock: SandboxClock;
  now: Date;
  today: string;
  run: SandboxClockRun | null;
}

/** 403 sandbox_only unless the caller's organisation is a sandbox. */
async function requireSandbox(tx: Tx, p: Principal): Promise<void> {
  const tenant = await tx.tenant.findUniqueOrThrow({ where: { id: p.tenant.id }, select: { sandbox: true } });
  if (!tenant.sandbox)
    throw new AppError('sandbox_only', {
      detail: `${p.tenant.code} is a live organisation: its business dates follow the real clock, and nobody may move them`,
    });
}

/** The caller's sandbox clock as it stands: a clock never advanced has no row yet and reads as the service clock. */
async function sandboxClockOf(tx: Tx, p: Principal): Promise<SandboxClock> {
  await requireSandbox(tx, p);
  const row = await tx.sandboxClock.findUnique({ where: { tenantId: p.tenant.id } });
  return row ?? { tenantId: p.tenant.id, offsetMs: 0n, status: 'ready', advancingTo: null, updatedAt: serviceNow() };
}

function view(clock: SandboxClock, run: SandboxClockRun | null): ClockView {
  const now = new Date(serviceNow().getTime() + Number(clock.offsetMs));
  return { clock, now, today: todayNairobi(now), run };
}

const latestRun = (tx: Tx, tenantId: number) =>
  tx.sandboxClockRun.findFirst({ where: { tenantId }, orderBy: { id: 'desc' } });

/** The caller's sandbox clock (scope read; any user of a sandbox organisation). */
export async function readSandboxClock(ctx: Context): Promise<ClockView> {
  const p = ctx.principal!;
  return ctx.tx(async (tx) => view(await sandboxClockOf(tx, p), await latestRun(tx, p.tenant.id)));
}

export interface AdvanceInput {
  /** The instant to move to. */
  to?: Date;
  /** Or whole days on from the clock's now. */
  days?: number;
}

/**
 * Starts an advance (scope admin, ability sandbox.clock): the clock is marked advancing to the target and the
 * advance is queued; the job runs each day's daily jobs on the organisation's clock and marks it ready
 * (sandbox.clock_ready). One advance at a time: 409 invalid_state while one is in hand.
 */
export async function advanceSandboxClock(ctx: Context, input: AdvanceInput): Promise<ClockView> {
  const p = ctx.principal!;
  requireAbility(p, 'sandbox.clock');
  if ((input.to === undefined) === (input.days === undefined))
    throw new AppError('validation_failed', { errors: [{ field: 'to', message: 'give either to or days' }] });
  const result = await ctx.tx(async (tx) => {
    await requireSandbox(tx, p);
    // ON CONFLICT DO NOTHING (an upsert reads, then inserts: two first advances at once both insert, and the second
    // fails on the key). The insert waits for the other's to commit, then finds the row.
    await tx.sandboxClock.createMany({ data: [{ tenantId: p.tenant.id }], skipDuplicates: true });
    // The row locked: of two advances asked at once, the second sees the first's `advancing`.
    const [found] = await tx.$queryRaw<SandboxClock[]>`
      SELECT tenant_id AS "tenantId", offset_ms AS "offsetMs", status::text AS status, advancing_to AS "advancingTo",
             updated_at AS "updatedAt"
        FROM sandbox_clocks WHERE tenant_id = ${p.tenant.id} FOR UPDATE`;
    if (found.status !== 'ready')
      throw new InvalidStateError('The clock is already advancing; wait for sandbox.clock_ready, then advance again');
    const from = view(found, null).now;
    const to = input.to ?? new Date(from.getTime() + (input.days ?? 0) * 86_400_000);
    const problem = targetProblem(from, to);
    if (problem)
      throw new AppError('validation_failed', { errors: [{ field: input.to ? 'to' : 'days', message: problem }] });
    const updated = await tx.sandboxClock.update({
      where: { tenantId: p.tenant.id },
      data: { status: 'advancing', advancingTo: to },
    });
    const run = await tx.sandboxClockRun.create({
      data: { tenantId: p.tenant.id, uuid: randomUUID(), fromAt: from, toAt: to, requestedBy: actorLabel(ctx) },
    });
    await recordAudit(ctx, tx, p.tenant.id, {
      action: 'sandbox_clock.advance_requested',
      entityType: 'sandbox_clock',
      entityId: p.tenant.id,
      changes: { from: from.toISOString(), to: to.toISOString(), run_uuid: run.uuid },
    });
    return view(updated, run);
  });
  await ctx.afterCommit(async () => {
    await ctx.app.sandbox?.queueAdvance(p.tenant.id);
  });
  return result;
}
