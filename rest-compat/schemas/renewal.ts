import { arr, date, int, money, nullable, obj, str, timestamp, describe, type Schema, oneOf } from './builders.ts';

const moneyObj = (): Schema => obj({ amount: int('Whole shillings'), amount_minor: int('Cents') });

export const renewalSchemas: Record<string, Schema> = {
  RenewalQuoteRequest: obj(
    {
      vehicles: describe(
        arr(
          obj({
            regno: str('A registration on cover under the policy'),
            value: int('New sum insured, whole shillings'),
          }),
        ),
        'Optional new sums insured; other vehicles keep their current value',
      ),
    },
    [],
  ),
  RenewalQuote: obj({
    uuid: str(),
    status: oneOf(['quoted', 'bound', 'expired']),
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
    insured: describe(
      arr(
        obj({
          id: int("The insured on the expiring policy (its record's insured[].id)"),
          kind: str('member or item'),
          name: str(),
          age: nullable(int('Medical: age at the start of the renewal period')),
          ...money('sum_insured', true),
          ...money('previous_annual_basic', true),
          ...money('renewal_annual_basic', true),
        }),
      ),
      'Medical and standard policies: the insured renewed, each priced on current rates; empty for motor',
    ),
    cover_premium: nullable(
      obj(
        { ...money('previous_annual_basic', true), ...money('renewal_annual_basic') },
        undefined,
        'A standard cover priced as a whole: its annual basic premium before and after; null otherwise',
      ),
    ),
    previous: describe(
      obj({ ...money('basic_premium'), ...money('taxes'), ...money('total') }),
      "The expiring period's figures",
    ),
    renewal: obj({
      ...money('basic_premium'),
      levies: arr(obj({ code: str(), name: str(), ...money('amount') })),
      ...money('taxes'),
      ...money('total'),
    }),
    change: describe(obj({ ...money('total') }), 'Renewal total minus the expiring total (negative when cheaper)'),
    instalment_options: arr(obj({ parts: int(), amounts: arr(moneyObj()) })),
    valid_until: describe(date(), 'Y-m-d: last day the quote can be bound'),
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
