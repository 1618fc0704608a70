import type { Context } from '../../../context.ts';
import { now as clockNow } from '../../../lib/clock.ts';
import { AppError } from '../../../lib/problem.ts';

/**
 * A one-time code is the customer's proof of presence (client-area sign-in, premium-finance signing), so the phone it
 * goes to must be one the customer gave, not one the organisation's staff just typed in (docs/motor-and-clients.md
 * "Phone changes"). A phone given when the client is created is trusted at once (that is the onboarding), and so is
 * the client's own change in the client area after signing in with a code. A change by the organisation (any API
 * client, user or agent) is held for PHONE_HOLD_HOURS on the organisation's business clock: meanwhile codes go to the
 * phone trusted before the change, and the old phone is told of the change by SMS (notice `phone_changed`).
 */
export const PHONE_HOLD_HOURS = 72;

export interface PhoneHoldFields {
  phone: string;
  phoneHeldUntil: Date | null;
  codesPhone: string | null;
}

/** Whether the organisation's last change of the phone is still held at `at`. */
export const phoneHeld = (c: Pick<PhoneHoldFields, 'phoneHeldUntil'>, at: Date = clockNow()) =>
  !!c.phoneHeldUntil && c.phoneHeldUntil > at;

/** The phone one-time codes go to now: the client's phone, or while a change is held the phone trusted before it. */
export function phoneForCodes(c: PhoneHoldFields, at: Date = clockNow()): string | null {
  return phoneHeld(c, at) ? c.codesPhone : c.phone;
}

/**
 * The phone for a code that must be sent (premium-finance signing), or 409 phone_recently_changed on `phone` when a
 * held change left no trusted phone to send it to.
 */
export function requirePhoneForCodes(c: PhoneHoldFields, at: Date = clockNow()): string {
  const phone = phoneForCodes(c, at);
  if (phone) return phone;
  throw new AppError('phone_recently_changed', {
    detail: `phone: changed by the organisation less than ${PHONE_HOLD_HOURS} hours ago and there is no earlier phone to send the code to; retry after ${c.phoneHeldUntil!.toISOString()}`,
    errors: [
      {
        field: 'phone',
        message: `changed less than ${PHONE_HOLD_HOURS} hours ago; codes resume at ${c.phoneHeldUntil!.toISOString()}`,
      },
    ],
    extra: { codes_held_until: c.phoneHeldUntil!.toISOString() },
  });
}

export type PhoneChangedBy = 'client' | 'organisation';

/**
 * Who is changing the phone: the client, only when signed in to the client area by a one-time code (an `app` key)
 * and acting on their own record; anyone else (staff, an agent, a key a policy save handed to the organisation) is
 * the organisation.
 */
export function phoneChangedBy(ctx: Context, clientId: number): PhoneChangedBy {
  const c = ctx.customer;
  return c && c.clientId === clientId && c.keyKind === 'app' ? 'client' : 'organisation';
}

/**
 * The hold columns after `before.phone` becomes `phone`. The client's own change is trusted at once; the
 * organisation's is held from `at`, codes staying with the phone trusted until now (the one before any change still
 * held, so a second change cannot launder the first); changing it back to that phone ends the hold.
 */
export function holdAfterChange(
  before: PhoneHoldFields,
  phone: string,
  by: PhoneChangedBy,
  at: Date = clockNow(),
): Pick<PhoneHoldFields, 'phoneHeldUntil' | 'codesPhone'> {
  const trusted = phoneForCodes(before, at);
  if (by === 'client' || trusted === phone) return { phoneHeldUntil: null, codesPhone: null };
  return { phoneHeldUntil: new Date(at.getTime() + PHONE_HOLD_HOURS * 3600_000), codesPhone: trusted };
}
