import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { isUuid } from '../../../lib/identifiers.ts';
import { InvalidStateError, notFound, ValidationError } from '../../../lib/problem.ts';
import { ipfApplicationVisibility } from '../../access/ipf.visibility.ts';
import { ipfSchedule } from '../../reference/ipf-terms.ts';

/** Helpers every application operation shares: the one locked lookup, the actor's name, the event reference. */

export type ApplicationRow = NonNullable<Awaited<ReturnType<Tx['ipfApplication']['findUnique']>>>;

/** Who moved an application, as its history shows: the acting user, else the API client. */
export function ipfActor(ctx: Context): string {
  const p = ctx.principal!;
  return p.actor?.name ?? p.apiClient.name;
}

/**
 * The application `uuid` if the caller may see it (its policy is within their reach), locked for the rest of `tx`,
 * else 404: the one lookup every application command starts from, so two commands on one application queue.
 */
export async function lockVisibleApplication(ctx: Context, tx: Tx, uuid: string): Promise<ApplicationRow> {
  if (!isUuid(uuid)) throw notFound('Premium-finance application');
  const seen = await tx.ipfApplication.findFirst({
    where: { AND: [{ uuid }, ipfApplicationVisibility(ctx.principal)] },
    select: { id: true },
  });
  if (!seen) throw notFound('Premium-finance application');
  await lockApplicationRow(tx, seen.id);
  return tx.ipfApplication.findUniqueOrThrow({ where: { id: seen.id } });
}

/** Locks application `id` for the rest of `tx` (always before its loan: one lock order for every writer). */
export async function lockApplicationRow(tx: Tx, id: number): Promise<void> {
  await tx.$queryRaw`SELECT id FROM ipf_applications WHERE id = ${id} FOR UPDATE`;
}

/** 409 invalid_state once the application's time is up (the daily job then moves it to expired). */
export function requireNotExpired(a: { expiresAt: Date; status: string }, now: Date): void {
  if (a.expiresAt <= now) {
    throw new InvalidStateError(`The application expired at ${a.expiresAt.toISOString()}; create a new one`, {
      application_status: a.status,
    });
  }
}

/** Every finance refusal of a rule (not of one field) reads the same way: 422 validation_failed on `ipf`. */
export function ipfRefusal(message: string): ValidationError {
  return new ValidationError([{ field: 'ipf', message }]);
}

/** Every signing-code failure reads the same way: 422 validation_failed with the reason on `otp`. */
export function otpFailure(reason: string): ValidationError {
  return new ValidationError([{ field: 'otp', message: reason }]);
}

/** The identifiers every finance event carries (catalogue-finance.ts `ipfRef`), read in `tx`. */
export async function applicationEventRef(tx: Tx, applicationId: number) {
  const a = await tx.ipfApplication.findUniqueOrThrow({
    where: { id: applicationId },
    select: {
      applicationNo: true,
      uuid: true,
      loan: { select: { loanNo: true, uuid: true } },
      policy: { select: { policyNo: true, uuid: true } },
      client: { select: { clientNo: true } },
      lender: { select: { name: true } },
    },
  });
  return {
    application_no: a.applicationNo,
    application_uuid: a.uuid,
    loan_no: a.loan?.loanNo ?? null,
    loan_uuid: a.loan?.uuid ?? null,
    policy_no: a.policy.policyNo,
    policy_uuid: a.policy.uuid,
    client_no: a.client.clientNo,
    lender: a.lender.name,
  };
}

/** What the policy must be for finance: pending its first payment and bound with payment_mode ipf. */
export function checkPolicyFinanceable(policy: { status: string; paymentMode: string; policyNo: string }): void {
  if (policy.paymentMode !== 'ipf')
    throw ipfRefusal(`policy ${policy.policyNo} was not bound with payment_mode ipf (premium finance)`);
  if (policy.status !== 'pending_payment')
    throw ipfRefusal(`policy ${policy.policyNo} is ${policy.status}; only a policy pending payment can be financed`);
}

/** The planned schedule as stored: [{seq, due_on, amount_minor}] (cents as a string, exact in JSON). */
export function scheduleJson(offer: { paymentsMinor: bigint[] }, from: string) {
  return ipfSchedule(offer, from).map((l) => ({
    seq: l.seq,
    due_on: l.dueOn,
    amount_minor: l.amountMinor.toString(),
  }));
}
