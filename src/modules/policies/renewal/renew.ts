import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import type { RenewalQuote } from '../../../generated/prisma/client.ts';
import { fromDbDate, todayNairobi } from '../../../lib/dates.ts';
import { isUuid } from '../../../lib/identifiers.ts';
import {
  DomainRuleError,
  type FieldError,
  notFound,
  PriceChangedError,
  ValidationError,
} from '../../../lib/problem.ts';
import { figureOff, PremiumMismatchError } from '../../motor/save-quote.service.ts';
import { isMotor } from '../../motor/motor-policy.ts';
import {
  createPolicy,
  currentProductVersion,
  drawPolicyNumbersAudited,
  type NewPolicy,
  pendingPolicyNumbers,
  type ProductLine,
} from '../policy-factory.ts';
import { assertCoverRenewable, renewalRisks } from './cover.ts';
import { findCoverClash, policyService } from '../policy.service.ts';
import { periodDays } from '../proration.ts';
import {
  assertRenewable,
  figuresOf,
  type RenewalFigures,
  RenewalQuoteExpiredError,
  RenewalQuoteStaleError,
  RenewalStateError,
  type RenewPolicyInput,
} from './shared.ts';

type LockedPolicy = Awaited<ReturnType<typeof loadBindableQuote>>['policy'];
type Vehicle = LockedPolicy['vehicles'][number];
type Matched = { v: Vehicle; fv: RenewalFigures['vehicles'][number] }[];

/** Binds a renewal quote into a new policy (pending_payment, renewalOfId = the old one). */
export async function renew(ctx: Context, policyUuid: string, input: RenewPolicyInput) {
  const p = ctx.principal!;
  const actor = requireAbility(p, 'policies.create');
  const { quoteUuid, premium, instalments } = validateInput(input);
  const base = await policyService.get(ctx, policyUuid);
  await ctx.app.limits.bind(p);
  const today = todayNairobi();
  return ctx.tx(
    async (tx) => {
      const { policy, quote } = await loadBindableQuote(tx, base.id, quoteUuid, today);
      const figures = figuresOf(quote);
      assertQuoteTerms(policy, quote, figures, premium, instalments);
      await assertRatesUnchanged(tx, figures, quote.productVersion);
      const vehicles = isMotor(policy) ? await vehiclesStillOnCover(ctx, tx, policy, quote, figures) : [];
      const terms = { policy, quote, figures, vehicles, instalments };
      const { policy: created } = await createPolicy(
        tx,
        renewalPolicy(terms, { tenantId: p.tenant.id, userId: actor.userId, apiClientId: p.apiClient.id }),
        pendingPolicyNumbers(),
      );
      const bound = await tx.renewalQuote.updateMany({
        where: { id: quote.id, status: 'quoted' },
        data: { status: 'bound', newPolicyId: created.id },
      });
      if (bound.count !== 1) throw new RenewalStateError('This renewal quote was bound meanwhile');
      // The number last, as a bind draws its numbers (counters.ts pendingNumber).
      const numbers = await drawPolicyNumbersAudited(ctx, tx, created, today, policy.productLine as ProductLine, {
        action: 'policy.renewal_bound',
        changes: {
          renewal_of: policy.policyNo,
          renewal_quote_uuid: quote.uuid,
          total_minor: quote.totalMinor.toString(),
          instalments,
        },
      });
      const renewal = { ...created, ...numbers };
      return { policy: renewal, renewalOf: policy };
    },
    { timeout: 20_000 },
  );
}

function validateInput(input: RenewPolicyInput): { quoteUuid: string; premium: number; instalments: number } {
  const errors: FieldError[] = [];
  const quoteUuid = input.renewalQuoteUuid;
  if (!isUuid(quoteUuid)) {
    errors.push({ field: 'input.renewalQuoteUuid', message: 'the uuid of a renewal quote of this policy' });
  }
  if (
    typeof input.premium !== 'number' ||
    !Number.isFinite(input.premium) ||
    input.premium < 0 ||
    input.premium > 1_000_000_000
  ) {
    errors.push({ field: 'input.premium', message: "required: the quote's total premium, whole shillings" });
  }
  const instalments = input.premiumInstalments ?? 1;
  if (!Number.isInteger(instalments) || instalments < 1 || instalments > 4)
    errors.push({ field: 'input.premiumInstalments', message: '1–4' });
  if (errors.length) throw new ValidationError(errors);
  return { quoteUuid: quoteUuid!, premium: input.premium!, instalments };
}

/** The policy locked (one renewal bind of a policy at a time) and its quote, still quoted, valid and current. */
async function loadBindableQuote(tx: Tx, policyId: number, quoteUuid: string, today: string) {
  await tx.$queryRaw`SELECT id FROM policies WHERE id = ${policyId} FOR UPDATE`;
  const policy = await tx.policy.findUniqueOrThrow({
    where: { id: policyId },
    include: { renewal: true, vehicles: true, risks: { orderBy: { id: 'asc' } } },
  });
  if (!isMotor(policy)) assertCoverRenewable(policy);
  const quote = await tx.renewalQuote.findFirst({ where: { uuid: quoteUuid, policyId: policy.id } });
  if (!quote) throw notFound('Renewal quote');
  if (quote.status === 'expired')
    throw new RenewalQuoteExpiredError('This renewal quote has expired; ask for a new one');
  if (quote.status !== 'quoted') throw new RenewalStateError(`This renewal quote is ${quote.status}`);
  assertRenewable(policy, today);
  if (fromDbDate(quote.validUntil) < today)
    throw new RenewalQuoteExpiredError(
      `This renewal quote was valid until ${fromDbDate(quote.validUntil)}; ask for a new one`,
    );
  if (figuresOf(quote).basedOnRevision !== policy.revision)
    throw new RenewalQuoteStaleError('The policy changed since this renewal was quoted; ask for a new one');
  return { policy, quote };
}

/** The caller's premium within KES 1 of the quote's total, and an instalment plan the quote offers. */
function assertQuoteTerms(
  policy: LockedPolicy,
  quote: RenewalQuote,
  figures: RenewalFigures,
  premium: number,
  instalments: number,
) {
  if (figureOff(premium, quote.totalMinor)) {
    throw new PremiumMismatchError("The premium differs from the renewal quote's total by more than KES 1", [
      {
        insurerId: policy.insurerId,
        basicMinor: quote.basicMinor,
        taxesMinor: quote.taxesMinor,
        totalMinor: quote.totalMinor,
      },
    ]);
  }
  if (instalments > figures.instalments.length) {
    throw new DomainRuleError(
      `The insurer allows at most ${figures.instalments.length} instalment${figures.instalments.length === 1 ? '' : 's'} for this cover`,
    );
  }
}

/** FOR SHARE holds rate changes off until this bind commits; a version moved since the quote answers price_changed. */
async function assertRatesUnchanged(tx: Tx, figures: RenewalFigures, quotedVersion: number) {
  const current = await currentProductVersion(tx, figures.productId, figures.productKind ?? 'motor');
  if (current !== quotedVersion) {
    throw new PriceChangedError(
      `The insurer changed its rates since this renewal was quoted (version ${quotedVersion} → ${current ?? 'withdrawn'}); ask for a new renewal quote`,
    );
  }
}

/** Every quoted vehicle still on cover under the policy, and none of them covered elsewhere for the new period. */
async function vehiclesStillOnCover(
  ctx: Context,
  tx: Tx,
  policy: LockedPolicy,
  quote: RenewalQuote,
  figures: RenewalFigures,
): Promise<Matched> {
  const byId = new Map(policy.vehicles.map((v) => [v.id, v]));
  const vehicles = figures.vehicles.map((fv) => {
    const v = byId.get(fv.vehicleId);
    if (!v || v.status !== 'active')
      throw new RenewalQuoteStaleError(
        "The policy's vehicles changed since this renewal was quoted; ask for a new one",
      );
    return { v, fv };
  });
  const clash = await findCoverClash(
    tx,
    {
      regNos: vehicles.map((x) => x.v.regNo),
      from: fromDbDate(quote.startDate),
      to: fromDbDate(quote.endDate),
      excludePolicyId: policy.id,
    },
    ctx.principal!,
  );
  if (clash) throw new DomainRuleError(`${clash.regNo} already has cover for these dates (${clash.policyRef})`);
  return vehicles;
}

/** The new policy: the old one's client, insurer, class and vehicles, on the quote's period and figures. */
function renewalPolicy(
  r: { policy: LockedPolicy; quote: RenewalQuote; figures: RenewalFigures; vehicles: Matched; instalments: number },
  by: { tenantId: number; userId: number; apiClientId: number },
): NewPolicy {
  const { policy, quote, figures } = r;
  const start = fromDbDate(quote.startDate);
  const end = fromDbDate(quote.endDate);
  const cover = isMotor(policy) ? null : renewalRisks(policy.risks, figures);
  return {
    tenantId: by.tenantId,
    clientId: policy.clientId,
    insurerId: policy.insurerId,
    productLine: policy.productLine as ProductLine,
    ...(cover
      ? { coverProductId: figures.productId, coverDetails: policy.coverDetails, ...cover }
      : { motorProductId: figures.productId, vehicleClass: policy.vehicleClass, coverType: policy.coverType }),
    productVersion: quote.productVersion,
    coverPeriod: 'annual',
    days: periodDays({ start, end }),
    startDate: start,
    endDate: end,
    paymentMode: 'full',
    instalmentCount: r.instalments,
    rateBps: figures.rateBps,
    basicMinor: quote.basicMinor,
    taxesMinor: quote.taxesMinor,
    totalMinor: quote.totalMinor,
    limitsOfLiability: policy.limitsOfLiability,
    salesPersonId: policy.salesPersonId,
    createdByUserId: by.userId,
    createdByApiClientId: by.apiClientId,
    renewalOfId: policy.id,
    taxes: figures.levies.map((l) => ({ code: l.code, name: l.name, amountMinor: BigInt(l.amountMinor) })),
    vehicles: r.vehicles.map(({ v, fv }) => ({
      regNo: v.regNo,
      chassisNo: v.chassisNo,
      engineNo: v.engineNo,
      make: v.make,
      model: v.model,
      yearOfManufacture: v.yearOfManufacture,
      valueMinor: fv.valueMinor == null ? null : BigInt(fv.valueMinor),
      bodyType: v.bodyType,
      tonnesMilli: v.tonnesMilli,
      pll: v.pll,
      coverage: v.coverage,
      benefits: v.benefits,
      annualBasicMinor: BigInt(fv.renewalAnnualBasicMinor),
    })),
    initialStatus: { source: 'renewal', reason: 'renews the policy named by renewal_of', actorUserId: by.userId },
  };
}
