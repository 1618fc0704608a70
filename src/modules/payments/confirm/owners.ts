import type { AppServices } from '../../../context.ts';
import { normalisePhone } from '../../../lib/identifiers.ts';
import type { DarajaPulledTransaction } from '../../../ports/mobile-money.ts';
import { shillingsToMinor } from '../settle.service.ts';

/**
 * Who could own a paid statement line. A line names no CheckoutRequestID, only the phone, our AccountReference and
 * the amount, and a paybill may be shared by several organisations (the sandbox's) whose account numbers restart at 1
 * in each: MTR-2026-000001 and IPF-2026-000001 are everyone's. So a line is attributed by what it says only when
 * exactly one request on the whole paybill, in any organisation, could have been paid by it: a request still open
 * (`sending`, or `pending` on the rail) with that phone and AccountReference and an amount not below the line's.
 * Two or more: none takes it; each is settled by what names its own prompt (its callback, or the status query once
 * its checkout id is known), and a line no callback ever claims is left for manual review (docs/payments.md).
 */
export interface LineOwner {
  id: string;
  tenantId: number;
  status: string;
  createdAt: Date;
}

export async function possibleOwners(
  app: AppServices,
  shortcode: string,
  line: DarajaPulledTransaction,
): Promise<LineOwner[]> {
  const amountMinor = shillingsToMinor(line.amount);
  const phone = normalisePhone(String(line.msisdn));
  if (amountMinor == null || !phone) return [];
  return app.db.system((tx) =>
    tx.paymentRequest.findMany({
      where: {
        shortcode,
        phone,
        accountReference: line.billreference,
        status: { in: ['sending', 'pending'] },
        amountMinor: { gte: amountMinor },
      },
      select: { id: true, tenantId: true, status: true, createdAt: true },
      orderBy: { createdAt: 'asc' },
    }),
  );
}

/** Logged for the paybill's operators: a paid line more than one request could own, left unattributed. */
export function logAmbiguousLine(app: AppServices, line: DarajaPulledTransaction, owners: LineOwner[]): void {
  app.log.warn(
    {
      transaction_ref: line.transactionId,
      payment_request_ids: owners.map((o) => o.id),
      tenant_ids: [...new Set(owners.map((o) => o.tenantId))],
    },
    'a paid statement line more than one payment request could own: attributed to none (left for their callbacks, or manual review)',
  );
}
