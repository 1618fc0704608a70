import type { Context } from '../../../context.ts';
import { keyset, keysetWhere } from '../../../db/read-model.ts';
import type { Prisma, Tx } from '../../../db/client.ts';
import { isYmd, toDbDate, YMD_MESSAGE } from '../../../lib/dates.ts';
import { isUuid, normalisePhone } from '../../../lib/identifiers.ts';
import { notFound, ValidationError } from '../../../lib/problem.ts';

export type SmsMessageQuery = { include?: Prisma.SmsMessageInclude; select?: Prisma.SmsMessageSelect };

export interface SmsListFilters {
  /** Messages with at least one recipient in this state. */
  status?: string | null;
  purpose?: string | null;
  /** Messages to this number (any Kenyan format). */
  phone?: string | null;
  /** Y-m-d, inclusive, on the UTC+3 (Nairobi) calendar. */
  fromDate?: string | null;
  toDate?: string | null;
}

const NAIROBI_OFFSET_MS = 3 * 3600_000;
/** Midnight of a Nairobi calendar day as an instant. */
const nairobiMidnight = (ymd: string) => new Date(toDbDate(ymd).getTime() - NAIROBI_OFFSET_MS);

function listWhere(f: SmsListFilters): Prisma.SmsMessageWhereInput {
  const and: Prisma.SmsMessageWhereInput[] = [];
  if (f.status) and.push({ recipients: { some: { status: f.status } } });
  if (f.purpose) and.push({ purpose: f.purpose });
  if (f.phone) {
    const n = normalisePhone(f.phone);
    if (!n) throw new ValidationError([{ field: 'phone', message: 'not a Kenyan mobile number' }]);
    and.push({ recipients: { some: { phone: n } } });
  }
  for (const [field, v] of [
    ['from_date', f.fromDate],
    ['to_date', f.toDate],
  ] as const)
    if (v && !isYmd(v)) throw new ValidationError([{ field, code: 'invalid_value', message: YMD_MESSAGE }]);
  if (f.fromDate) and.push({ createdAt: { gte: nairobiMidnight(f.fromDate) } });
  if (f.toDate) and.push({ createdAt: { lt: new Date(nairobiMidnight(f.toDate).getTime() + 86_400_000) } });
  return { AND: and };
}

/** The outbox, newest first (staff only: the type's rule and the root field's `staff` scope). */
export function listMessages(ctx: Context, filters: SmsListFilters, query: Prisma.SmsMessageFindManyArgs) {
  const { query: paged, id } = keyset(query);
  return ctx.tx((tx) =>
    tx.smsMessage.findMany({ ...paged, where: keysetWhere(listWhere(filters), id), orderBy: { id: 'desc' } }),
  );
}

export async function getMessage(ctx: Context, uuid: string, query: SmsMessageQuery = {}) {
  if (!isUuid(uuid)) throw notFound('SMS message');
  const row = await ctx.tx((tx) => tx.smsMessage.findFirst({ ...query, where: { uuid } }));
  if (!row) throw notFound('SMS message');
  return row;
}

export function reread(tx: Tx, id: number, query: SmsMessageQuery = {}) {
  return tx.smsMessage.findUniqueOrThrow({ ...query, where: { id } });
}
