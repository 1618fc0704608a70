import type { Tx } from '../db/client.ts';

/**
 * The SMS reference every organisation starts from (docs/sms.md "SMS"): a registered default sender ID derived from its
 * code, the templates of the service's own messages, and an opening balance recorded as a ledger top-up. Safe to
 * run on every start: it only adds what is missing (an organisation's own changes are kept).
 */
export const SMS_TEMPLATES: Record<string, string> = {
  otp: '{{code}} is your {{org}} sign-in code. It expires in 5 minutes. Do not share it.',
  receipt:
    'Dear {{name}}, we have received KES {{amount}} for {{account}}. Receipt {{receipt_no}}. Thank you, {{org}}.',
  policy_activated: 'Dear {{name}}, your policy {{policy_no}} is active from {{cover_start}} to {{cover_end}}. {{org}}',
  renewal_due:
    'Dear {{name}}, your policy {{policy_no}} expires on {{end_date}} ({{days}} days). Renew to stay covered. {{org}}',
  ipf_sign:
    '{{code}} signs your {{org}} premium loan {{application_no}} with {{lender}}: {{total}} repayable. Expires in {{minutes}} minutes. Do not share it.',
  phone_changed:
    'Dear {{name}}, the phone number on your {{org}} account was changed on {{changed_on}}. If you did not ask for this, contact {{org}} at once.',
  ipf_reminder:
    'Dear {{name}}, KES {{amount}} of your premium loan {{loan_no}} is due on {{due_on}}. Pay by M-Pesa paybill {{paybill}}, account {{loan_no}}. {{org}}',
};
export const SMS_OPENING_UNITS = 1000;

/** Alphanumeric, at most 11, starting with a letter: the organisation's code as the networks would register it. */
export function senderIdFor(code: string): string {
  const alnum = code.replace(/[^A-Za-z0-9]/g, '').toUpperCase();
  return (/^[A-Z]/.test(alnum) ? alnum : `B${alnum}`).slice(0, 11);
}

export async function ensureSmsReference(tx: Tx, tenantId: number): Promise<void> {
  const { code } = await tx.tenant.findUniqueOrThrow({ where: { id: tenantId }, select: { code: true } });
  if (!(await tx.smsSenderId.findFirst({ where: { tenantId } })))
    await tx.smsSenderId.create({
      data: { tenantId, senderId: senderIdFor(code), status: 'registered', isDefault: true },
    });
  await tx.smsTemplate.createMany({
    data: Object.entries(SMS_TEMPLATES).map(([c, body]) => ({ tenantId, code: c, body })),
    skipDuplicates: true,
  });
  const opened = await tx.$queryRaw<{ tenant_id: number }[]>`
    INSERT INTO sms_accounts (tenant_id, balance_units, updated_at) VALUES (${tenantId}, ${SMS_OPENING_UNITS}, now())
    ON CONFLICT (tenant_id) DO NOTHING RETURNING tenant_id`;
  if (opened.length)
    await tx.smsLedgerEntry.create({
      data: {
        tenantId,
        kind: 'topup',
        units: SMS_OPENING_UNITS,
        balanceAfter: SMS_OPENING_UNITS,
        reference: 'opening-balance',
      },
    });
}
