import type {
  RenewalQuoteMutation,
  RenewalQuoteMutationVariables,
  RenewalVehicleInput,
  RenewPolicyMutationVariables,
} from '../generated/operations.ts';
import type { z } from 'zod';
import type { Resolved, SentInput } from '../route.ts';
import type { RenewalQuoteRequest, RenewRequest } from '../schemas/renewal.ts';
import { moneyObject, minor, whole } from './money.ts';

/** REST body of POST /policies/{uuid}/renewal-quote (its types checked by its definition) → GraphQL variables. */
export function renewalQuoteFromRest(
  uuid: string,
  b: z.output<typeof RenewalQuoteRequest>,
): SentInput<RenewalQuoteMutationVariables> {
  return {
    policyUuid: uuid,
    vehicles: b.vehicles?.map((v): SentInput<RenewalVehicleInput> => ({ regNo: v.regno, value: v.value })),
  };
}

/** REST body of POST /policies/{uuid}/renew (parsed by its definition) → GraphQL variables. */
export function renewFromRest(uuid: string, b: z.output<typeof RenewRequest>): SentInput<RenewPolicyMutationVariables> {
  return {
    policyUuid: uuid,
    input: { renewalQuoteUuid: b.renewal_quote_uuid, premium: b.premium, premiumInstalments: b.premium_instalments },
  };
}

/** GraphQL RenewalQuote → the wire shape. */
export function renewalQuoteToRest(q: Resolved<RenewalQuoteMutation>['renewalQuote']) {
  return {
    uuid: q.uuid,
    // Aliased in the operation: a Problem's `status` (the HTTP status) shares the selection.
    status: q.quoteStatus,
    policy_uuid: q.policy.uuid,
    policy_no: q.policy.policyNo,
    start_date: q.startDate,
    end_date: q.endDate,
    insurer: { id: q.policy.insurer.databaseId, name: q.policy.insurer.name },
    product_version: q.productVersion,
    vehicles: q.vehicles.map((v) => ({
      regno: v.regNo,
      value: whole(v.value),
      value_minor: minor(v.value),
      previous_annual_basic: whole(v.previousAnnualBasic),
      previous_annual_basic_minor: minor(v.previousAnnualBasic),
      renewal_annual_basic: whole(v.renewalAnnualBasic),
      renewal_annual_basic_minor: minor(v.renewalAnnualBasic),
    })),
    insured: q.insured.map((r) => ({
      id: r.databaseId,
      kind: r.kind,
      name: r.name,
      age: r.age,
      sum_insured: whole(r.sumInsured),
      sum_insured_minor: minor(r.sumInsured),
      previous_annual_basic: whole(r.previousAnnualBasic),
      previous_annual_basic_minor: minor(r.previousAnnualBasic),
      renewal_annual_basic: whole(r.renewalAnnualBasic),
      renewal_annual_basic_minor: minor(r.renewalAnnualBasic),
    })),
    cover_premium: q.coverPremium
      ? {
          previous_annual_basic: whole(q.coverPremium.previousAnnualBasic),
          previous_annual_basic_minor: minor(q.coverPremium.previousAnnualBasic),
          renewal_annual_basic: whole(q.coverPremium.renewalAnnualBasic),
          renewal_annual_basic_minor: minor(q.coverPremium.renewalAnnualBasic),
        }
      : null,
    previous: {
      basic_premium: whole(q.previous.basicPremium),
      basic_premium_minor: minor(q.previous.basicPremium),
      taxes: whole(q.previous.taxes),
      taxes_minor: minor(q.previous.taxes),
      total: whole(q.previous.total),
      total_minor: minor(q.previous.total),
    },
    renewal: {
      basic_premium: whole(q.basicPremium),
      basic_premium_minor: minor(q.basicPremium),
      levies: q.levies.map((l) => ({
        code: l.code,
        name: l.name,
        amount: whole(l.amount),
        amount_minor: minor(l.amount),
      })),
      taxes: whole(q.taxes),
      taxes_minor: minor(q.taxes),
      total: whole(q.total),
      total_minor: minor(q.total),
    },
    change: { total: whole(q.change), total_minor: minor(q.change) },
    instalment_options: q.instalmentOptions.map((o) => ({ parts: o.parts, amounts: o.amounts.map(moneyObject) })),
    valid_until: q.validUntil,
    new_policy: q.newPolicy
      ? { uuid: q.newPolicy.uuid, policy_no: q.newPolicy.policyNo, status: q.newPolicy.status }
      : null,
    created_at: q.createdAt,
  };
}
