import type {
  RenewalQuoteMutation,
  RenewalQuoteMutationVariables,
  RenewalVehicleInput,
  RenewPolicyMutationVariables,
} from '../generated/operations.ts';
import type { z } from 'zod';
import type { Resolved, SentInput } from '../route.ts';
import type { RenewalQuoteRequest, RenewRequest } from '../schemas/renewal.ts';
import { moneyObject, moneyPair } from './money.ts';

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
      ...moneyPair('value', v.value),
      ...moneyPair('previous_annual_basic', v.previousAnnualBasic),
      ...moneyPair('renewal_annual_basic', v.renewalAnnualBasic),
    })),
    insured: q.insured.map((r) => ({
      id: r.databaseId,
      kind: r.kind,
      name: r.name,
      age: r.age,
      ...moneyPair('sum_insured', r.sumInsured),
      ...moneyPair('previous_annual_basic', r.previousAnnualBasic),
      ...moneyPair('renewal_annual_basic', r.renewalAnnualBasic),
    })),
    cover_premium: q.coverPremium
      ? {
          ...moneyPair('previous_annual_basic', q.coverPremium.previousAnnualBasic),
          ...moneyPair('renewal_annual_basic', q.coverPremium.renewalAnnualBasic),
        }
      : null,
    previous: {
      ...moneyPair('basic_premium', q.previous.basicPremium),
      ...moneyPair('taxes', q.previous.taxes),
      ...moneyPair('total', q.previous.total),
    },
    renewal: {
      ...moneyPair('basic_premium', q.basicPremium),
      levies: q.levies.map((l) => ({ code: l.code, name: l.name, ...moneyPair('amount', l.amount) })),
      ...moneyPair('taxes', q.taxes),
      ...moneyPair('total', q.total),
    },
    change: { ...moneyPair('total', q.change) },
    instalment_options: q.instalmentOptions.map((o) => ({ parts: o.parts, amounts: o.amounts.map(moneyObject) })),
    valid_until: q.validUntil,
    new_policy: q.newPolicy
      ? { uuid: q.newPolicy.uuid, policy_no: q.newPolicy.policyNo, status: q.newPolicy.status }
      : null,
    created_at: q.createdAt,
  };
}
