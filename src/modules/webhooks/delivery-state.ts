/**
 * The delivery state machine, in one place (pure: the worker and the services only apply what it returns).
 *
 *   pending ──2xx──▶ delivered
 *   pending / retry_scheduled ──failure, attempts left──▶ retry_scheduled (+1 m, +5 m, +30 m, +2 h, +12 h)
 *   pending / retry_scheduled ──failure, none left──▶ failed
 *   failed ──manual retry──▶ pending (a new cycle of one attempt; same delivery and event id)
 *
 * The automatic cycle has 6 attempts (the spec); a manual retry is a single re-send: when it fails the delivery is
 * failed again and can be retried again.
 */
export type DeliveryStatus = 'pending' | 'retry_scheduled' | 'delivered' | 'failed';

export const RETRY_DELAYS_SECONDS = [60, 300, 1800, 7200, 43_200] as const;
export const AUTOMATIC_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

export interface DeliveryState {
  status: DeliveryStatus;
  attemptCount: number;
  /** attemptCount when the current cycle began: 0 for the automatic cycle, else the count at the manual retry. */
  cycleStart: number;
}

export interface Transition extends DeliveryState {
  nextAttemptAt: Date | null;
  deliveredAt?: Date;
  failedAt?: Date;
}

export class InvalidTransition extends Error {}

export function canAttempt(s: DeliveryState): boolean {
  return s.status === 'pending' || s.status === 'retry_scheduled';
}

/** The outcome of one attempt made at `now`. */
export function afterAttempt(s: DeliveryState, ok: boolean, now: Date): Transition {
  if (!canAttempt(s)) throw new InvalidTransition(`no attempt can be made on a ${s.status} delivery`);
  const attemptCount = s.attemptCount + 1;
  const base = { attemptCount, cycleStart: s.cycleStart };
  if (ok) return { ...base, status: 'delivered', nextAttemptAt: null, deliveredAt: now };
  const inCycle = attemptCount - s.cycleStart;
  const allowed = s.cycleStart === 0 ? AUTOMATIC_ATTEMPTS : 1;
  if (inCycle >= allowed) return { ...base, status: 'failed', nextAttemptAt: null, failedAt: now };
  return {
    ...base,
    status: 'retry_scheduled',
    nextAttemptAt: new Date(now.getTime() + RETRY_DELAYS_SECONDS[inCycle - 1] * 1000),
  };
}

/** A manual retry: only a failed delivery, re-sent at once. */
export function manualRetry(s: DeliveryState, now: Date): Transition {
  if (s.status !== 'failed')
    throw new InvalidTransition(`only failed deliveries can be retried (this one is ${s.status})`);
  return { status: 'pending', attemptCount: s.attemptCount, cycleStart: s.attemptCount, nextAttemptAt: now };
}
