import { randomUUID } from 'node:crypto';
import { requireAbility } from '../../auth/principal.ts';
import type { Context } from '../../context.ts';
import type { Prisma, Tx } from '../../db/client.ts';
import { todayNairobi, toDbDate } from '../../lib/dates.ts';
import { type InsuredInput, resolveInsured } from '../clients/client-matching.ts';
import {
  checkQuotedFigures,
  nextQuoteNumber,
  type QuotedFigures,
  recordQuoteSaved,
  savedQuote,
} from '../motor/save-quote.service.ts';
import type { CoverInsured, CoverLineCode, CoverRiskBase } from './line.ts';
import { lineOf } from './lines.ts';
import { type CoverOption, coverNoQuote, priceCover } from './quote.service.ts';

export interface SaveCoverQuoteInput {
  client: InsuredInput;
  /** The line's quote request (MedicalQuoteInput, TravelQuoteInput, StandardQuoteInput). */
  risk: unknown;
  quotes?: QuotedFigures[] | null;
  prospectUuid?: string | null;
}

/** JSON of a value holding bigints (cents as decimal strings). */
export const jsonOf = (v: unknown): Prisma.InputJsonValue =>
  JSON.parse(
    JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)),
  ) as Prisma.InputJsonValue;

/** The request field that carries the line's risk in a save: `medical`, `trip` or `cover`. */
export const RISK_FIELD: Record<CoverLineCode, string> = { medical: 'medical', travel: 'trip', standard: 'cover' };

export const coverSaveQuoteService = {
  /**
   * As motor's save_quote: prices the risk on the server and stores the quote with every option found (valid 14
   * days); figures the caller sends are checked against that price (each within KES 1); the client is matched or
   * added by the same rule.
   */
  async save(ctx: Context, code: CoverLineCode, input: SaveCoverQuoteInput) {
    const p = ctx.principal!;
    const actor = requireAbility(p, 'quotes.create');
    const line = lineOf(code);
    const today = todayNairobi();
    const risk = line.normalise(input.risk ?? {}, { prefix: RISK_FIELD[code], today });
    return ctx.tx(async (tx: Tx) => {
      const { options, refusals } = await priceCover(ctx, tx, line, risk, `${RISK_FIELD[code]}.insurer_ids`);
      if (!options.length) throw coverNoQuote(line, risk, refusals);
      checkQuotedFigures(options, input.quotes ?? []);
      const client = await resolveInsured(ctx, tx, input.client ?? {});
      const { quoteNo, validUntil } = await nextQuoteNumber(tx, p.tenant.id, today);
      const quote = await createCoverQuote(tx, {
        tenantId: p.tenant.id,
        code,
        risk: { ...risk, cover: line.coverDetails(risk) },
        insured: line.insured(risk),
        options,
        clientId: client.id,
        quoteNo,
        validUntil,
        by: { userId: actor.userId, apiClientId: p.apiClient.id },
      });
      await recordQuoteSaved(ctx, tx, {
        client,
        quoteNo,
        prospectUuid: input.prospectUuid,
        changes: { options: options.length, product_line: code, product: risk.productCode },
      });
      return savedQuote(quote, client.clientNo, validUntil);
    });
  },
};

interface NewCoverQuote {
  tenantId: number;
  code: CoverLineCode;
  risk: CoverRiskBase & { cover: Record<string, unknown> };
  insured: CoverInsured[];
  options: CoverOption[];
  clientId: number;
  quoteNo: string;
  validUntil: string;
  by: { userId: number | null; apiClientId: number };
}

/** The quote with its options, cheapest first; each option keeps the full pricing detail it was sold on. */
function createCoverQuote(tx: Tx, q: NewCoverQuote) {
  return tx.quote.create({
    data: {
      tenantId: q.tenantId,
      uuid: randomUUID(),
      quoteNo: q.quoteNo,
      clientId: q.clientId,
      productLine: q.code,
      validUntil: toDbDate(q.validUntil),
      request: jsonOf(q.risk),
      // For the non-motor lines the column holds the insured persons, travellers or items.
      vehicle: jsonOf(q.insured),
      createdByUserId: q.by.userId,
      createdByApiClientId: q.by.apiClientId,
      options: {
        create: q.options.map((o) => ({
          tenantId: q.tenantId,
          insurerId: o.insurer.id,
          coverProductId: o.productId,
          productVersion: o.productVersion,
          rateBps: o.rateBps,
          basicMinor: o.basicMinor,
          taxesMinor: o.taxesMinor,
          totalMinor: o.totalMinor,
          detail: jsonOf(o),
        })),
      },
    },
    include: { options: { orderBy: { totalMinor: 'asc' }, include: { insurer: true } } },
  });
}
