import type { AppServices } from '../../context.ts';
import { isAppError } from '../../lib/problem.ts';
import { toShillings } from '../../lib/money.ts';
import { sendServiceMessage } from './message/service-message.ts';

/**
 * The service's own notices by SMS (docs/sms.md "SMS"): when an event below is dispatched, the client it names gets the
 * organisation's template. Called by the event dispatcher in jobs/ (so no lower module imports this one), for every
 * event it dispatches; idempotent by the event id (one message per event, sms_messages unique on it), so a
 * dispatch retried or swept again sends nothing twice. A notice never holds anything up: when the client has no
 * usable number, the template or sender ID is missing or the balance cannot cover it, nothing is recorded and the
 * reason is logged (the payment, the activation, the renewal go on regardless).
 */
type Data = Record<string, unknown>;
type Notice = {
  template: string;
  vars(d: Data): Record<string, string | number>;
  /** Another phone than the client's own, when the event names it (a changed phone's notice goes to the old one). */
  phone?(d: Data): unknown;
};

const amountOf = (d: Data) => {
  const m = d.amount_minor ?? (d.premium as Data | undefined)?.amount_minor;
  return typeof m === 'number' ? toShillings(BigInt(m)).toLocaleString('en-KE') : '';
};

export const NOTICES: Record<string, Notice> = {
  'payment.received': {
    template: 'receipt',
    // A loan repayment names the loan it paid (its policy_no is the financed policy's), a premium the policy.
    vars: (d) => ({
      amount: amountOf(d),
      receipt_no: String(d.receipt_no),
      account: String(d.loan_no ?? d.policy_no ?? d.account),
    }),
  },
  'policy.activated': {
    template: 'policy_activated',
    vars: (d) => ({
      policy_no: String(d.policy_no),
      cover_start: String(d.cover_start),
      cover_end: String(d.cover_end),
    }),
  },
  'client.phone_changed': {
    template: 'phone_changed',
    // To the phone it was changed from: the customer who did not ask for the change still holds that one.
    phone: (d) => d.previous_phone,
    vars: (d) => ({ changed_on: String(d.changed_at).slice(0, 10) }),
  },
  'policy.renewal_due': {
    template: 'renewal_due',
    vars: (d) => ({ policy_no: String(d.policy_no), end_date: String(d.end_date), days: Number(d.days_to_expiry) }),
  },
};

export type NoticeOutcome = 'not_a_notice' | 'recorded' | 'skipped';

export async function noticeForEvent(app: AppServices, eventId: string): Promise<NoticeOutcome> {
  const event = await app.db.system((tx) =>
    tx.event.findUnique({ where: { id: eventId }, select: { name: true, tenantId: true, data: true } }),
  );
  const notice = event && NOTICES[event.name];
  if (!event || !notice) return 'not_a_notice';
  const data = (event.data ?? {}) as Data;
  const skip = (reason: string) => {
    app.log.info({ event_id: eventId, event: event.name, reason }, 'SMS notice skipped');
    return 'skipped' as const;
  };
  if (typeof data.client_no !== 'string') return skip('no client');
  try {
    return await app.db.tenant(event.tenantId, async (tx) => {
      const client = await tx.client.findFirst({ where: { clientNo: data.client_no as string } });
      const phone = notice.phone ? notice.phone(data) : client?.phone;
      if (!client || typeof phone !== 'string' || !phone) return skip('the client has no phone');
      await sendServiceMessage(app, tx, {
        tenantId: event.tenantId,
        phone,
        templateCode: notice.template,
        vars: { name: client.name.split(' ')[0], ...notice.vars(data) },
        purpose: notice.template,
        clientId: client.id,
        eventId,
      });
      return 'recorded' as const;
    });
  } catch (err) {
    // 422: no number, template, sender ID or balance. P2002: a twin dispatch recorded it first.
    if (isAppError(err) && err.status === 422) return skip(err.detail);
    if ((err as { code?: string }).code === 'P2002') return 'recorded';
    throw err;
  }
}
