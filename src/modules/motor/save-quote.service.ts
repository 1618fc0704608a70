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
/** A submitted figure above this (whole shillings) is off whatever the price: KES 1 trillion. */
const MAX_FIGURE_SHILLINGS = 1e12;
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

/** What the price checks read of an option, motor or any other line. */
export interface PricedFigures {
  insurer: { id: number; name: string };
  basicMinor: bigint;
  taxesMinor: bigint;
  totalMinor: bigint;
}

/** A sent figure (whole shillings) more than KES 1 from the server's; nothing sent is never off. */
export function figureOff(sentShillings: number | null | undefined, serverMinor: bigint): boolean {
  if (sentShillings == null) return false;
  // Beyond any premium (or not a number at all): off, rather than an amount too large to hold in cents.
  if (!Number.isFinite(sentShillings) || Math.abs(sentShillings) > MAX_FIGURE_SHILLINGS) return true;
  const d = fromShillings(sentShillings) - serverMinor;
  return (d < 0n ? -d : d) > PREMIUM_TOLERANCE_MINOR;
}

/** Each sent figure within KES 1 of the server's; returns the fields that are off. */
export function figuresOff(o: PricedFigures, sent: QuotedFigures): string[] {
  return [
    ...(figureOff(sent.basic, o.basicMinor) ? ['basic'] : []),
    ...(figureOff(sent.taxes, o.taxesMinor) ? ['taxes'] : []),
    ...(figureOff(sent.total, o.totalMinor) ? ['total'] : []),
  ];
}

export function mismatchError(options: PricedFigures[], detail: string): PremiumMismatchError {
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
  /** The prospect this quote is for (moves it to quoted; docs/motor-and-clients.md "Prospects"). */
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
      const { quoteNo, validUntil } = await nextQuoteNumber(tx, p.tenant.id, today);
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
      await recordQuoteSaved(ctx, tx, {
        client,
        quoteNo,
        prospectUuid: input.prospectUuid,
        changes: {
          options: options.length,
          vehicle_class: risk.vehicleClass,
          cover_type: risk.coverType,
        },
      });
      return savedQuote(quote, client.clientNo, validUntil);
    });
  },
};

/** The next quote number of the organisation (Q-<year>-<seq>) and the day the quote is valid until. */
export async function nextQuoteNumber(tx: Tx, tenantId: number, today: string) {
  const seq = await nextNumber(tx, tenantId, 'quote_no');
  return {
    quoteNo: `Q-${today.slice(0, 4)}-${String(seq).padStart(6, '0')}`,
    validUntil: addDays(today, QUOTE_VALIDITY_DAYS),
  };
}

/** What every save quote does once its quote exists, motor or any other line: the prospect quoted, the audit entry. */
export async function recordQuoteSaved(
  ctx: Context,
  tx: Tx,
  q: { client: { id: number; clientNo: string }; quoteNo: string; prospectUuid?: string | null; changes: object },
): Promise<void> {
  await prospectService.onQuoteSaved(ctx, tx, {
    clientId: q.client.id,
    prospectUuid: q.prospectUuid,
    ref: `Quote ${q.quoteNo}`,
  });
  await recordAudit(ctx, tx, ctx.principal!.tenant.id, {
    action: 'quote.saved',
    entityType: 'quote',
    entityId: q.quoteNo,
    changes: { client_no: q.client.clientNo, ...q.changes },
  });
}

/** What a save quote answers with, for motor and every other line: the quote and its options, cheapest first. */
export function savedQuote<
  Q extends {
    options: { id: number; insurerId: number; insurer: { name: string }; rateBps: number | null; totalMinor: bigint }[];
  },
>(quote: Q, clientNo: string, validUntil: string) {
  return {
    quote,
    clientNo,
    validUntil,
    options: quote.options.map((o) => ({
      optionId: o.id,
      insurerId: o.insurerId,
      insurerName: o.insurer.name,
      rateBps: o.rateBps,
      totalMinor: o.totalMinor,
    })),
  };
}

/** 422 for figures quoted for an insurer that does not rate the risk; 422 premium_mismatch for any off by > KES 1. */
export function checkQuotedFigures(options: PricedFigures[], quotes: QuotedFigures[]): void {
  const errors: FieldError[] = [];
  const off: string[] = [];
  quotes.forEach((q, i) => {
    const o = options.find((x) => x.insurer.id === q.insurerId);
    if (!o) errors.push({ field: `quotes.${i}.insurerId`, message: 'this insurer does not rate this risk' });
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
