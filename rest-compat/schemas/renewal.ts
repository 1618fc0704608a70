import { z } from 'zod';
import { isUuid } from '../../src/lib/identifiers.ts';
import { arr, date, int, money, nullable, obj, str, timestamp, describe, type Schema, oneOf } from './builders.ts';
import { readAsObject } from './policy.ts';

const moneyObj = (): Schema => obj({ amount: int('Whole shillings'), amount_minor: int('Cents') });

/** The largest amount the domain takes for a sum insured or a premium (src/modules/policies/renewal). */
const MAX_AMOUNT = 1_000_000_000;

/**
 * `POST /policies/{uuid}/renewal-quote`. The domain finds the policy before it judges the vehicles (an unknown one is
 * 404 whatever the body), so only their types are checked here; the rules are the descriptions'.
 */
export const RenewalQuoteRequest = readAsObject(
  obj(
    {
      vehicles: describe(
        arr(
          readAsObject(
            obj(
              {
                regno: str(
                  'A registration on cover under the policy (any spacing), each listed once; else 422 naming it',
                ).nullish(),
                value: z
                  .number()
                  .nullish()
                  .describe(
                    'New sum insured, whole shillings: more than 0, at most 1,000,000,000 (else 422 naming it)',
                  ),
              },
              [],
            ),
          ),
        ).nullish(),
        'Optional new sums insured; other vehicles keep their current value',
      ),
    },
    [],
  ),
);

/** `POST /policies/{uuid}/renew`: judged before the policy is looked up. */
export const RenewRequest = obj(
  {
    renewal_quote_uuid: z
      .string()
      .refine(isUuid, 'the uuid of a renewal quote of this policy')
      .describe('The renewal quote (a uuid; one not of this policy is 404)'),
    premium: z
      .number()
      .refine((v) => v >= 0 && v <= MAX_AMOUNT, "required: the quote's total premium, whole shillings")
      .describe("The quote's total premium, whole shillings (within KES 1), at most 1,000,000,000"),
    premium_instalments: z
      .int()
      .refine((v) => v >= 1 && v <= 4, '1–4')
      .nullish()
      .describe('1 (default) up to the number of instalment options (at most 4)'),
  },
  ['renewal_quote_uuid', 'premium'],
);

export const renewalSchemas: Record<string, Schema> = {
  RenewalQuoteRequest,
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
  RenewRequest,
};
