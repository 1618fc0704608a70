import { type TenantFilter, tenantWhere } from '../../../db/org-clocks.ts';
import type { AppServices, Context } from '../../../context.ts';
import type { Tx, TxOptions } from '../../../db/client.ts';
import { isAppError } from '../../../lib/problem.ts';
import { NOT_OFFERED_TYPES } from '../../motor/rating.ts';

/** What the steps of one daily premium-finance run share: the day judged, a job context, the counts. */

export interface IpfDailyCounts {
  /** Reminders recorded in the SMS outbox. */
  reminders: number;
  /** Reminders the SMS service refused (no balance, template, sender ID or usable number): tried again tomorrow. */
  remindersSkipped: number;
  /** ipf.instalment_overdue notices. */
  overdue: number;
  /** Loans moved active → defaulted (each with its cancellation for non-payment when the policy was active). */
  defaulted: number;
  /** Draft or approved applications past their expiry. */
  applicationsExpired: number;
  /** Signed agreements whose deposit never came: application expired, loan cancelled. */
  loansCancelled: number;
  failures: number;
}

/** A run's counts before it starts (and what a run that changes nothing answers). */
export const noIpfCounts = (): IpfDailyCounts => ({
  reminders: 0,
  remindersSkipped: 0,
  overdue: 0,
  defaulted: 0,
  applicationsExpired: 0,
  loansCancelled: 0,
  failures: 0,
});

export interface IpfDailyRun {
  app: AppServices;
  /** A job context (no principal): audits say `system`. */
  ctx: Context;
  /** The day judged, Y-m-d (Nairobi). */
  asOf: string;
  asOfDb: Date;
  /** The organisations judged on this day (src/db/org-clocks.ts forEachClock). */
  tenants: TenantFilter;
  counts: IpfDailyCounts;
}

/**
 * The candidates' tenant filter: the organisations this run judges, of those that offer premium finance (not
 * SACCOs or microfinance).
 */
export const offeringTenant = (run: IpfDailyRun) => ({
  ...tenantWhere(run.tenants),
  tenant: { type: { notIn: [...NOT_OFFERED_TYPES] } },
});

/** The first instant of a Nairobi calendar day. */
export const nairobiDayStart = (ymd: string): Date => new Date(`${ymd}T00:00:00+03:00`);

/**
 * One candidate in its own transaction on its organisation; counts it when `fn` says it moved. A refusal of the SMS
 * service (422: no balance, template, sender ID or usable number) is counted under `refused` when given and logged;
 * any other failure is logged and counted, and the run goes on.
 */
export async function each(
  run: IpfDailyRun,
  c: { id: number; tenantId: number },
  fn: (tx: Tx) => Promise<boolean>,
  counter: Exclude<keyof IpfDailyCounts, 'failures'>,
  opts: { refused?: 'remindersSkipped'; tx?: TxOptions } = {},
): Promise<void> {
  try {
    if (await run.app.db.tenant(c.tenantId, fn, opts.tx)) run.counts[counter] += 1;
  } catch (err) {
    if (opts.refused && isAppError(err) && err.status === 422) {
      run.counts[opts.refused] += 1;
      run.app.log.warn({ id: c.id, tenant_id: c.tenantId, reason: err.detail }, `premium finance: ${counter} refused`);
      return;
    }
    run.counts.failures += 1;
    run.app.log.error({ err, id: c.id, tenant_id: c.tenantId }, `premium finance: ${counter} failed`);
  }
}

/** Locks a loan row for the rest of the transaction (receipts and settlement take the same lock). */
export async function lockLoan(tx: Tx, loanId: number): Promise<void> {
  await tx.$queryRaw`SELECT id FROM ipf_loans WHERE id = ${loanId} FOR UPDATE`;
}
