import { randomUUID } from 'node:crypto';
import { type Actor, requireAbility } from '../../auth/principal.ts';
import type { Context } from '../../context.ts';
import type { Prisma, Tx } from '../../db/client.ts';
import { addDays, todayNairobi, toDbDate } from '../../lib/dates.ts';
import { fromShillings } from '../../lib/money.ts';
import { AppError, type FieldError, ValidationError } from '../../lib/problem.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { type InsuredInput, resolveInsured } from '../clients/client-matching.ts';
import { prospectService } from '../prospects/prospect.service.ts';
import { nextNumber } from '../../db/counters.ts';
import {
  type MotorQuoteInput,
  type MotorRisk,
  noQuote,
  normaliseRisk,
  priceRisk,
  type QuotedOption,
} from './quote.service.ts';

export const QUOTE_VALIDITY_DAYS = 14;
/** KES 1 either way between the caller's figure and the server's. */
export const PREMIUM_TOLERANCE_MINOR = 100n;

export class PremiumMismatchError extends AppError {
  constructor(
    detail: string,
    readonly server: { insurerId: number; basicMinor: bigint; taxesMinor: bigint; totalMinor: bigint }[],
  ) {
    super('premium_mismatch', { detail });
  }
}

export interface QuotedFigures {
  insurerId?: number | null;
  basic?: number | null;
  taxes?: number | null;
  total?: number | null;
}

/** Each sent figure within KES 1 of the server's; returns the fields that are off. */
export function figuresOff(o: QuotedOption, sent: QuotedFigures): string[] {
  const off = (sentShillings: number | null | undefined, serverMinor: bigint) => {
    if (sentShillings == null) return false;
    const d = fromShillings(sentShillings) - serverMinor;
    return (d < 0n ? -d : d) > PREMIUM_TOLERANCE_MINOR;
  };
  return [
    ...(off(sent.basic, o.basicMinor) ? ['basic'] : []),
    ...(off(sent.taxes, o.taxesMinor) ? ['taxes'] : []),
    ...(off(sent.total, o.totalMinor) ? ['total'] : []),
  ];
}

export function mismatchError(options: QuotedOption[], detail: string): PremiumMismatchError {
  return new PremiumMismatchError(
    detail,
    options.map((o) => ({
      insurerId: o.insurer.id,
      basicMinor: o.basicMinor,
      taxesMinor: o.taxesMinor,
      totalMinor: o.totalMinor,
    })),
  );
}

export interface SaveQuoteInput {
  client: InsuredInput;
  vehicle: MotorQuoteInput & { regNo?: string | null; make?: string | null; model?: string | null };
  quotes?: QuotedFigures[] | null;
  /** The prospect this quote is for (moves it to quoted; README "Prospects"). */
  prospectUuid?: string | null;
}

export const saveQuoteService = {
  /**
   * Prices the risk on the server and stores the quote with every option found. Figures the caller sends are
   * checked against that price (each within KES 1), so a client never sees a quote the server would not honour.
   */
  async save(ctx: Context, input: SaveQuoteInput) {
    const p = ctx.principal!;
    const actor = requireAbility(p, 'quotes.create');
    const risk: MotorRisk = normaliseRisk(input.vehicle ?? {}, { prefix: 'vehicle' });
    const today = todayNairobi();
    return ctx.tx(async (tx: Tx) => {
      const { options, refusals } = await priceRisk(ctx, tx, risk);
      if (!options.length) throw noQuote(risk, refusals);
      checkQuotedFigures(options, input.quotes ?? []);

      const client = await resolveInsured(ctx, tx, input.client ?? {});
      const seq = await nextNumber(tx, p.tenant.id, 'quote_no');
      const quoteNo = `Q-${today.slice(0, 4)}-${String(seq).padStart(6, '0')}`;
      const validUntil = addDays(today, QUOTE_VALIDITY_DAYS);
      const quote = await createQuote(tx, {
        ctx,
        actor,
        input,
        risk,
        options,
        clientId: client.id,
        quoteNo,
        validUntil,
      });
      await prospectService.onQuoteSaved(ctx, tx, {
        clientId: client.id,
        prospectUuid: input.prospectUuid,
        ref: `Quote ${quoteNo}`,
      });
      await recordAudit(ctx, tx, p.tenant.id, {
        action: 'quote.saved',
        entityType: 'quote',
        entityId: quoteNo,
        changes: {
          client_no: client.clientNo,
          options: options.length,
          vehicle_class: risk.vehicleClass,
          cover_type: risk.coverType,
        },
      });
      return {
        quote,
        clientNo: client.clientNo,
        validUntil,
        options: quote.options.map((o) => ({
          optionId: o.id,
          insurerId: o.insurerId,
          insurerName: o.insurer.name,
          rateBps: o.rateBps,
          totalMinor: o.totalMinor,
        })),
      };
    });
  },
};

/** 422 for figures quoted for an insurer that does not rate the risk; 409 premium_mismatch for any off by > KES 1. */
function checkQuotedFigures(options: QuotedOption[], quotes: QuotedFigures[]): void {
  const errors: FieldError[] = [];
  const off: string[] = [];
  quotes.forEach((q, i) => {
    const o = options.find((x) => x.insurer.id === q.insurerId);
    if (!o) errors.push({ field: `quotes.${i}.insurer_id`, message: 'this insurer does not rate this risk' });
    else if (figuresOff(o, q).length) off.push(`${o.insurer.name} (${figuresOff(o, q).join(', ')})`);
  });
  if (errors.length) throw new ValidationError(errors);
  if (off.length)
    throw mismatchError(options, `Quoted figures differ from the server price by more than KES 1: ${off.join('; ')}`);
}

interface NewQuote {
  ctx: Context;
  actor: Actor;
  input: SaveQuoteInput;
  risk: MotorRisk;
  options: QuotedOption[];
  clientId: number;
  quoteNo: string;
  validUntil: string;
}

/** The quote with its options, cheapest first; each option keeps the full pricing detail it was sold on. */
function createQuote(tx: Tx, { ctx, actor, input, risk, options, clientId, quoteNo, validUntil }: NewQuote) {
  const p = ctx.principal!;
  return tx.quote.create({
    data: {
      tenantId: p.tenant.id,
      uuid: randomUUID(),
      quoteNo,
      clientId,
      productLine: 'motor',
      validUntil: toDbDate(validUntil),
      request: { ...risk, valueMinor: risk.valueMinor?.toString() ?? null },
      vehicle: {
        reg_no: input.vehicle.regNo ?? null,
        make: input.vehicle.make ?? null,
        model: input.vehicle.model ?? null,
        year: risk.year,
      },
      createdByUserId: actor.userId,
      createdByApiClientId: p.apiClient.id,
      options: {
        create: options.map((o) => ({
          tenantId: p.tenant.id,
          insurerId: o.insurer.id,
          motorProductId: o.productId,
          productVersion: o.productVersion,
          rateBps: o.rateBps,
          basicMinor: o.basicMinor,
          taxesMinor: o.taxesMinor,
          totalMinor: o.totalMinor,
          detail: JSON.parse(
            JSON.stringify(o, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
          ) as Prisma.InputJsonValue,
        })),
      },
    },
    include: { options: { orderBy: { totalMinor: 'asc' }, include: { insurer: true } } },
  });
}
