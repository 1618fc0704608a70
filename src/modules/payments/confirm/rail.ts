import type { AppServices } from '../../../context.ts';
import { normalisePhone } from '../../../lib/identifiers.ts';
import {
  darajaDateTime,
  darajaTimestamp,
  type DarajaPulledTransaction,
  type MobileMoneyRail,
} from '../../../ports/mobile-money.ts';

/** What confirmation reads from the rail: its status query (through railOf) and its paybill statement. */

/** A statement line this young with no request may belong to a push still recording its acknowledgement. */
export const statementGraceMs = (app: AppServices) => app.config.mpesaRailTimeoutMs + 30_000;

export function railOf(app: AppServices): MobileMoneyRail {
  const rail = app.mobileMoney.rail;
  if (!rail) throw new Error('the mobile-money rail is not running in this process');
  return rail;
}

export const sameMsisdn = (line: DarajaPulledTransaction, phone: string) =>
  normalisePhone(String(line.msisdn)) === phone;

/** When a statement line was paid: its trxDate, Nairobi time unless it names an offset; null when unreadable. */
export function lineDate(line: DarajaPulledTransaction): Date | null {
  const date = new Date(`${line.trxDate.replace(' ', 'T')}${/[Z+]/.test(line.trxDate.slice(10)) ? '' : '+03:00'}`);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A statement line as the items of a success result (what applyRailResult reads). */
export function lineItems(line: DarajaPulledTransaction) {
  const date = lineDate(line);
  const ts = date ? darajaTimestamp(date) : undefined;
  return [
    { Name: 'Amount', Value: line.amount },
    { Name: 'MpesaReceiptNumber', Value: line.transactionId },
    ...(ts ? [{ Name: 'TransactionDate', Value: Number(ts) }] : []),
    { Name: 'PhoneNumber', Value: Number(normalisePhone(String(line.msisdn)) ?? 0) },
  ];
}

/** The statement between two instants, every page of it. */
export async function pull(
  app: AppServices,
  shortcode: string,
  from: Date,
  to: Date,
): Promise<DarajaPulledTransaction[]> {
  const out: DarajaPulledTransaction[] = [];
  for (let offset = 0; offset < 100_000;) {
    const page = await railOf(app).pullTransactions({
      ShortCode: shortcode,
      StartDate: darajaDateTime(from),
      EndDate: darajaDateTime(to),
      OffSetValue: String(offset),
    });
    const lines = (page.Response ?? []).flat();
    out.push(...lines);
    if (lines.length < 1000) break;
    offset += lines.length;
  }
  return out;
}

/** Whether a rail transaction is already ours: receipted, or recorded as unmatched money. */
export async function receipted(app: AppServices, ref: string): Promise<boolean> {
  return app.db.system(
    async (tx) =>
      !!(
        (await tx.receipt.findFirst({ where: { transactionRef: ref } })) ??
        (await tx.unmatchedPayment.findFirst({ where: { transactionRef: ref } }))
      ),
  );
}
