import type { SchemaObject } from 'openapi3-ts/oas31';
import { asObject } from '../route.ts';
import { arr, date, int, money, nullable, obj, str, timestamp } from '../schemas.ts';
import { moneyObject, moneyPair } from './money.ts';

/** REST body of POST /policies/{uuid}/renewal-quote → GraphQL variables (validation lives in the service). */
export function renewalQuoteFromRest(uuid: string, body: unknown) {
  const b = asObject(body);
  const vehicles = b.vehicles;
  return {
    policyUuid: uuid,
    vehicles: Array.isArray(vehicles)
      ? vehicles.map((v) => ({ regNo: asObject(v).regno, value: asObject(v).value }))
      : vehicles,
  };
}

/** REST body of POST /policies/{uuid}/renew → GraphQL variables. */
export function renewFromRest(uuid: string, body: unknown) {
  const b = asObject(body);
  return {
    policyUuid: uuid,
    input: { renewalQuoteUuid: b.renewal_quote_uuid, premium: b.premium, premiumInstalments: b.premium_instalments },
  };
}

/** GraphQL RenewalQuote → the wire shape. */
export function renewalQuoteToRest(q: any) {
  return {
    uuid: q.uuid,
    status: q.quoteStatus ?? q.status,
    policy_uuid: q.policy.uuid,
    policy_no: q.policy.policyNo,
    start_date: q.startDate,
    end_date: q.endDate,
    insurer: { id: q.policy.insurer.databaseId, name: q.policy.insurer.name },
    product_version: q.productVersion,
    vehicles: q.vehicles.map((v: any) => ({
      regno: v.regNo,
      ...moneyPair('value', v.value),
      ...moneyPair('previous_annual_basic', v.previousAnnualBasic),
      ...moneyPair('renewal_annual_basic', v.renewalAnnualBasic),
    })),
    previous: {
      ...moneyPair('basic_premium', q.previous.basicPremium),
      ...moneyPair('taxes', q.previous.taxes),
      ...moneyPair('total', q.previous.total),
    },
    renewal: {
      ...moneyPair('basic_premium', q.basicPremium),
      levies: q.levies.map((l: any) => ({ code: l.code, name: l.name, ...moneyPair('amount', l.amount) })),
      ...moneyPair('taxes', q.taxes),
      ...moneyPair('total', q.total),
    },
    change: { ...moneyPair('total', q.change) },
    instalment_options: q.instalmentOptions.map((o: any) => ({ parts: o.parts, amounts: o.amounts.map(moneyObject) })),
    valid_until: q.validUntil,
    new_policy: q.newPolicy
      ? { uuid: q.newPolicy.uuid, policy_no: q.newPolicy.policyNo, status: q.newPolicy.status }
      : null,
    created_at: q.createdAt,
  };
}

const moneyObj = (): SchemaObject => obj({ amount: int('Whole shillings'), amount_minor: int('Cents') });

export const renewalSchemas: Record<string, SchemaObject> = {
  RenewalQuoteRequest: obj(
    {
      vehicles: {
        ...arr(
          obj({
            regno: str('A registration on cover under the policy'),
            value: int('New sum insured, whole shillings'),
          }),
        ),
        description: 'Optional new sums insured; other vehicles keep their current value',
      },
    },
    [],
  ),
  RenewalQuote: obj({
    uuid: str(),
    status: { type: 'string', enum: ['quoted', 'bound', 'expired'] },
    policy_uuid: str(),
    policy_no: str(),
    start_date: date(),
    end_date: date(),
    insurer: obj({ id: int(), name: str() }),
    product_version: int('Rating version priced on; a newer one at bind answers 409 price_changed'),
    vehicles: arr(
      obj({
        regno: str(),
        ...money('value', true),
        ...money('previous_annual_basic'),
        ...money('renewal_annual_basic'),
      }),
    ),
    previous: {
      ...obj({ ...money('basic_premium'), ...money('taxes'), ...money('total') }),
      description: "The expiring period's figures",
    },
    renewal: obj({
      ...money('basic_premium'),
      levies: arr(obj({ code: str(), name: str(), ...money('amount') })),
      ...money('taxes'),
      ...money('total'),
    }),
    change: {
      ...obj({ ...money('total') }),
      description: 'Renewal total minus the expiring total (negative when cheaper)',
    },
    instalment_options: arr(obj({ parts: int(), amounts: arr(moneyObj()) })),
    valid_until: { ...date(), description: 'Y-m-d: last day the quote can be bound' },
    new_policy: nullable(obj({ uuid: str(), policy_no: str(), status: str() })),
    created_at: timestamp(),
  }),
  RenewRequest: obj(
    {
      renewal_quote_uuid: str(),
      premium: int("The quote's total premium, whole shillings (within KES 1)"),
      premium_instalments: int('1 (default) up to the number of instalment options'),
    },
    ['renewal_quote_uuid', 'premium'],
  ),
};
