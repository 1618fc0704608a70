import { type Actor, requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { newSecret, sha256Hex } from '../../../lib/crypto.ts';
import { todayNairobi } from '../../../lib/dates.ts';
import { DomainRuleError } from '../../../lib/problem.ts';
import { type Insured, resolveInsured } from '../../clients/client-matching.ts';
import { prospectService } from '../../prospects/prospect.service.ts';
import type { MotorRisk, QuotedOption } from '../../motor/quote.service.ts';
import {
  createPolicy,
  drawPolicyNumbersAudited,
  type NewPolicy,
  pendingPolicyNumbers,
  type ProductLine,
  withNumbers,
} from '../policy-factory.ts';
import { findCoverClash } from '../policy.service.ts';
import { assertRatesUnchanged, priceAsSubmitted } from './price.ts';
import {
  assertIpfOffered,
  assertStartWithinReach,
  type BindInput,
  riskOf,
  validate,
  type ValidBind,
} from './validate.ts';

/**
 * Binds one vehicle's cover at the server's price: the policy pending payment with its instalment debit notes, the
 * client found or added, and a client-area key when the client has none.
 */
export async function bind(ctx: Context, input: BindInput) {
  const p = ctx.principal!;
  const actor = requireAbility(p, 'policies.create');
  assertIpfOffered(p, input);
  const v = validate(input);
  const risk = riskOf(input, v.days);
  const today = todayNairobi();
  assertStartWithinReach(risk, today);
  await ctx.app.limits.bind(p);

  const saved = await ctx.tx(
    async (tx: Tx) => {
      const option = await priceAsSubmitted(ctx, tx, risk, input.policy, v);
      await assertNoCoverClash(ctx, tx, v.regNo, risk);
      // FOR SHARE holds further rate changes off until this bind commits.
      await assertRatesUnchanged(tx, option);
      const client = await resolveInsured(ctx, tx, input.client ?? {}, 'client', { numberLater: true });
      const salesPersonId = client.salesPersonId ?? (actor.role === 'agent' ? actor.userId : null);
      const created = await createPolicy(
        tx,
        boundPolicy({ input, v, risk, option }, actor, {
          tenantId: p.tenant.id,
          clientId: client.id,
          salesPersonId,
          apiClientId: p.apiClient.id,
        }),
        pendingPolicyNumbers(),
      );
      const bound = await recordBound(ctx, tx, {
        ...created,
        client,
        today,
        line: 'motor',
        prospectUuid: input.prospectUuid,
        changes: {
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
  return saved;
}

async function assertNoCoverClash(ctx: Context, tx: Tx, regNo: string, risk: MotorRisk): Promise<void> {
  const clash = await findCoverClash(tx, { regNos: [regNo], from: risk.startDate, to: risk.endDate }, ctx.principal!);
  if (clash) throw new DomainRuleError(`${regNo} already has cover for these dates (${clash.policyRef})`);
}

/** The new policy on the priced option, its one vehicle as submitted and normalised. */
function boundPolicy(
  b: { input: BindInput; v: ValidBind; risk: MotorRisk; option: QuotedOption },
  actor: Actor,
  owner: { tenantId: number; clientId: number; salesPersonId: number | null; apiClientId: number },
): NewPolicy {
  const { risk, option } = b;
  const vehicle = b.input.vehicles[0];
  return {
    tenantId: owner.tenantId,
    clientId: owner.clientId,
    insurerId: option.insurer.id,
    motorProductId: option.productId,
    productVersion: option.productVersion,
    vehicleClass: risk.vehicleClass,
    coverType: risk.coverType,
    coverPeriod: risk.coverPeriod,
    days: risk.days,
    startDate: risk.startDate,
    endDate: risk.endDate,
    paymentMode: b.v.paymentMode,
    instalmentCount: b.v.instalments,
    rateBps: option.rateBps,
    basicMinor: option.basicMinor,
    taxesMinor: option.taxesMinor,
    totalMinor: option.totalMinor,
    limitsOfLiability: b.input.policy.limitsOfLiability,
    salesPersonId: owner.salesPersonId,
    createdByUserId: actor.userId,
    createdByApiClientId: owner.apiClientId,
    taxes: option.taxes,
    vehicles: [
      {
        regNo: b.v.regNo,
        chassisNo: vehicle.chassisNo?.trim().toUpperCase() || null,
        engineNo: vehicle.engineNo?.trim().toUpperCase() || null,
        make: vehicle.make ?? null,
        model: vehicle.model ?? null,
        yearOfManufacture: risk.year,
        valueMinor: risk.valueMinor,
        bodyType: vehicle.bodyType ?? null,
        tonnesMilli: risk.tonnage == null ? null : Math.round(risk.tonnage * 1000),
        pll: risk.pll || null,
        coverage: risk.coverage,
        benefits: vehicle.benefits,
        // The vehicle's annual basic premium (PLL included) on cover for the whole period.
        annualBasicMinor: option.basicMinor,
      },
    ],
    initialStatus: { source: 'bind', actorUserId: actor.userId },
  };
}

/**
 * What every bind does once its policy exists, motor or any other line: the client-area key when the client has none
 * (returned, shown once), then the numbers, drawn last (the client's when this bind added it, then the policy's:
 * counters/pendingNumber), the prospect won, and the audit entry. Answers the policy and its debit notes as numbered.
 */
export async function recordBound<
  P extends { id: number; uuid: string; policyNo: string; riskNote: string; tenantId: number },
  D extends { number: string },
>(
  ctx: Context,
  tx: Tx,
  b: {
    policy: P;
    debitNotes: D[];
    /** The policyholder: a client this bind added (`created`) is numbered here (Insured.complete). */
    client: Insured;
    today: string;
    line: ProductLine;
    prospectUuid?: string | null;
    changes: Record<string, unknown>;
  },
): Promise<{ policy: P; debitNotes: D[]; clientNo: string; clientKey: string | null }> {
  const { tenantId } = b.policy;
  const clientKey = await issueClientKey(tx, tenantId, b.client.id, b.client.created);
  const clientNo = b.client.complete ? await b.client.complete() : b.client.clientNo;
  const numbers = await drawPolicyNumbersAudited(ctx, tx, b.policy, b.today, b.line, {
    action: 'policy.bound',
    changes: { client_no: clientNo, ...b.changes },
  });
  await prospectService.onPolicyBound(ctx, tx, {
    clientId: b.client.id,
    clientIsNew: b.client.created,
    prospectUuid: b.prospectUuid,
    ref: `Policy ${numbers.policyNo}`,
  });
  return { ...withNumbers(b, numbers), clientNo, clientKey };
}

/** Client-area credentials: a key only when the client has none yet; existing keys keep working. */
async function issueClientKey(tx: Tx, tenantId: number, clientId: number, isNew: boolean): Promise<string | null> {
  if (!isNew && (await tx.clientKey.findFirst({ where: { clientId, revokedAt: null }, select: { id: true } })))
    return null;
  const clientKey = newSecret('bck');
  await tx.clientKey.create({ data: { tenantId, clientId, keyHash: sha256Hex(clientKey), kind: 'policy' } });
  return clientKey;
}
