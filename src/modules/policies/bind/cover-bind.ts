import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { todayNairobi } from '../../../lib/dates.ts';
import { DomainRuleError, PriceChangedError, ValidationError } from '../../../lib/problem.ts';
import { type InsuredInput, resolveInsured } from '../../clients/client-matching.ts';
import type { CoverLineCode, CoverRiskBase } from '../../covers/line.ts';
import { type AnyCoverLine, lineOf } from '../../covers/lines.ts';
import { type CoverOption, coverNoQuote, priceCover } from '../../covers/quote.service.ts';
import { RISK_FIELD } from '../../covers/save-quote.service.ts';
import { createPolicy, currentProductVersion, type NewPolicy, pendingPolicyNumbers } from '../policy-factory.ts';
import { recordBound } from './bind.ts';
import { checkAsSubmitted } from './price.ts';
import { assertIpfOffered, assertStartWithinReach, paymentPlan, policyFieldErrors } from './validate.ts';

export interface CoverBindInput {
  client: InsuredInput;
  policy: {
    startDate?: string | null;
    insurerId?: number | null;
    totalBasic?: number | null;
    taxes?: number | null;
    premium?: number | null;
    premiumInstalments?: number | null;
    paymentMode?: string | null;
    productVersion?: number | null;
  };
  /** The line's request (MedicalQuoteInput, TravelQuoteInput, StandardQuoteInput), names required. */
  risk: unknown;
  prospectUuid?: string | null;
}

interface ValidCoverBind {
  instalments: number;
  paymentMode: 'full' | 'ipf';
}

/** The policy fields every line's bind takes, as motor's bind checks them. */
function validatePolicy(code: CoverLineCode, pol: CoverBindInput['policy']): ValidCoverBind {
  const errors = policyFieldErrors(pol, code !== 'travel');
  const plan = paymentPlan(pol, errors);
  if (errors.length) throw new ValidationError(errors);
  return plan;
}

/**
 * The risk to bind: the line's request with the policy's start date (a trip starts on its departure date, which a
 * policy start date, when sent, must equal), names of the insured required, priced with the chosen insurer only.
 */
function riskToBind(code: CoverLineCode, line: AnyCoverLine, input: CoverBindInput, today: string): CoverRiskBase {
  const sent = input.risk && typeof input.risk === 'object' && !Array.isArray(input.risk) ? input.risk : {};
  const pol = input.policy;
  const risk = line.normalise(
    { ...sent, ...(code === 'travel' ? {} : { startDate: pol.startDate }), insurerIds: [pol.insurerId] },
    { prefix: RISK_FIELD[code], today, forBind: true },
  );
  if (code === 'travel' && pol.startDate && pol.startDate !== risk.startDate) {
    throw new ValidationError([
      { field: 'policy.start_date', message: `a trip's cover starts on its departure date (${risk.startDate})` },
    ]);
  }
  return risk;
}

/** The server's price with the chosen insurer, checked against the caller's version, figures and plan. */
async function priceAsSubmitted(
  ctx: Context,
  tx: Tx,
  b: { line: AnyCoverLine; risk: CoverRiskBase; pol: CoverBindInput['policy']; v: ValidCoverBind },
): Promise<CoverOption> {
  const { line, risk, pol, v } = b;
  const { options, refusals } = await priceCover(ctx, tx, line, risk);
  const option = options[0];
  if (!option) {
    const insurer = await tx.insurer.findUnique({ where: { id: pol.insurerId! } });
    if (!insurer) throw new ValidationError([{ field: 'policy.insurer_id', message: 'no such insurer on your panel' }]);
    if (refusals.length) throw new DomainRuleError(refusals.join('; '));
    throw coverNoQuote(line, risk, refusals);
  }
  checkAsSubmitted(option, pol, v);
  return option;
}

/**
 * Binds a medical, travel or standard cover at the server's price, as motor's bind does: the policy pending payment
 * with its instalment debit notes, its insured persons, travellers or items (each with its premium item where the
 * line prices per person, else one item for the policy), the client found or added, a client-area key when the
 * client has none. Counts against the bind limit.
 */
export async function bindCover(ctx: Context, code: CoverLineCode, input: CoverBindInput) {
  const p = ctx.principal!;
  const actor = requireAbility(p, 'policies.create');
  assertIpfOffered(p, input);
  const pol = input.policy ?? {};
  const v = validatePolicy(code, pol);
  const line = lineOf(code);
  const today = todayNairobi();
  const risk = riskToBind(code, line, { ...input, policy: pol }, today);
  assertStartWithinReach(risk, today);
  await ctx.app.limits.bind(p);
  return ctx.tx(
    async (tx: Tx) => {
      const option = await priceAsSubmitted(ctx, tx, { line, risk, pol, v });
      // FOR SHARE holds further rate changes off until this bind commits.
      if ((await currentProductVersion(tx, option.productId, 'cover')) !== option.productVersion)
        throw new PriceChangedError(`${option.insurer.name} changed its rates during this save; quote again`);
      const client = await resolveInsured(ctx, tx, input.client ?? {}, 'client', { numberLater: true });
      const salesPersonId = client.salesPersonId ?? (actor.role === 'agent' ? actor.userId : null);
      const np = boundCover(code, line, risk, option, v, {
        tenantId: p.tenant.id,
        clientId: client.id,
        salesPersonId,
        userId: actor.userId,
        apiClientId: p.apiClient.id,
      });
      const created = await createPolicy(tx, np, pendingPolicyNumbers());
      const bound = await recordBound(ctx, tx, {
        ...created,
        client,
        today,
        line: code,
        prospectUuid: input.prospectUuid,
        changes: {
          product_line: code,
          product: option.productCode,
          insurer_id: option.insurer.id,
          total_minor: option.totalMinor.toString(),
          instalments: v.instalments,
          payment_mode: v.paymentMode,
        },
      });
      return { ...bound, option };
    },
    { timeout: 20_000 },
  );
}

function boundCover(
  code: CoverLineCode,
  line: AnyCoverLine,
  risk: CoverRiskBase,
  option: CoverOption,
  v: ValidCoverBind,
  owner: {
    tenantId: number;
    clientId: number;
    salesPersonId: number | null;
    userId: number | null;
    apiClientId: number;
  },
): NewPolicy {
  const insured = line.insured(risk);
  const shares = option.perInsuredMinor;
  // A line prices per insured in insured()'s order (covers/line.ts): a share missing would leave premium off cover.
  if (shares && shares.length !== insured.length)
    throw new Error(`${code} rating gave ${shares.length} shares for ${insured.length} insured`);
  return {
    tenantId: owner.tenantId,
    clientId: owner.clientId,
    insurerId: option.insurer.id,
    coverProductId: option.productId,
    productLine: code,
    productVersion: option.productVersion,
    coverDetails: { ...line.coverDetails(risk), terms: option.terms },
    coverPeriod: risk.coverPeriod,
    days: risk.days,
    startDate: risk.startDate,
    endDate: risk.endDate,
    paymentMode: v.paymentMode,
    instalmentCount: v.instalments,
    rateBps: option.rateBps,
    basicMinor: option.basicMinor,
    taxesMinor: option.taxesMinor,
    totalMinor: option.totalMinor,
    limitsOfLiability: option.benefits.map((b) => ({ item: b.name, limit_minor: b.limitMinor?.toString() ?? null })),
    salesPersonId: owner.salesPersonId,
    createdByUserId: owner.userId,
    createdByApiClientId: owner.apiClientId,
    taxes: option.taxes,
    vehicles: [],
    risks: insured.map((r, i) => ({ ...r, annualBasicMinor: shares ? shares[i] : null })),
    policyPremiumMinor: shares ? null : option.basicMinor,
    initialStatus: { source: 'bind', actorUserId: owner.userId },
  };
}
