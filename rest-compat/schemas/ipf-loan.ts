import { z } from 'zod';
import { arr, date, int, money, nullable, obj, str, timestamp, oneOf } from './builders.ts';
import { readAsObject } from './policy.ts';

/** The finance module's lists, written out (the facade imports no module); test/ipf-loans-read.test.ts checks they match. */
export const IPF_LOAN_STATUSES = ['awaiting_deposit', 'active', 'settled', 'defaulted', 'cancelled'];
export const IPF_INSTALMENT_STATUSES = ['paid', 'due', 'overdue', 'waived', 'upcoming'];

/**
 * `POST /ipf/quote`. An organisation that does not offer premium finance is answered 403 ipf_not_offered whatever
 * it sends, before the values are judged; so only each value's type is checked here (what GraphQL's coercion
 * checked before the domain ran), each rule is the domain's and said in the description. Each field may be null
 * (absent); a body that is not an object reads as `{}`, as before.
 */
export const IpfQuoteRequest = readAsObject(
  obj(
    {
      premium: z
        .number()
        .describe(
          'Shillings (cents kept), from 0.01 to 1,000,000,000 (or send policy; neither or both is 422 naming premium)',
        )
        .nullish(),
      policy: str(
        'The uuid of a policy pending payment that the caller may see: its gross premium (also policy_uuid). One unknown, out of reach or not pending payment is 422 naming policy',
      ).nullish(),
      policy_uuid: str('The same as policy (legacy spelling)').nullish(),
      lender_id: z.int().describe('Only this lender (GET /ipf/lenders); one not on the panel is 422').nullish(),
      tenor_months: z
        .int()
        .describe('Only this tenor, 3–10 months (another, or one no lender offers, is 422)')
        .nullish(),
      start_date: str(
        'Y-m-d (a real calendar date, else 422): the deposit’s due date; default and earliest today',
      ).nullish(),
    },
    [],
    'premium or policy, not both (else 422 naming premium)',
  ),
);

const enumOf = (values: readonly string[], description?: string) => oneOf(values, description);

const scheduleLine = obj({ instalment: int('1 is the deposit'), due_on: date(), ...money('amount') });

const offer = obj({
  lender_id: int(),
  lender_name: str(),
  tenor_months: int(),
  ...money('deposit'),
  ...money('instalment'),
  ...money('charge'),
  ...money('total_repayable'),
  apr_bps: int('The flat rate annualised: charge ÷ premium × 12 ÷ months, basis points'),
  schedule: arr(scheduleLine),
});

const loan = {
  id: int(),
  uuid: str(),
  loan_no: str('IPF-YYYY-NNNNNN: the account an ipf_repayment names'),
  status: enumOf(IPF_LOAN_STATUSES),
  policy: obj({ uuid: str(), policy_no: str() }),
  client: obj({ client_no: str(), name: str() }),
  lender: obj({ id: int(), name: str() }),
  tenor_months: int(),
  ...money('principal'),
  ...money('charge'),
  ...money('total_repayable'),
  apr_bps: int(),
  ...money('paid'),
  ...money('rebate'),
  ...money('outstanding'),
  ...money('arrears'),
  next_due: nullable(obj({ instalment: int(), due_on: date(), ...money('amount') })),
  settlement: nullable(
    obj(
      { ...money('payoff'), ...money('rebate'), valid_until: date() },
      undefined,
      'A confirmed early-settlement figure, held until valid_until',
    ),
  ),
  ...money('lender_refund'),
  signed_at: timestamp(),
  funded_at: nullable(timestamp()),
  closed_at: nullable(timestamp()),
  created_at: timestamp(),
  updated_at: timestamp(),
};

const detail = {
  ...loan,
  instalments: arr(
    obj({
      instalment: int('1 is the deposit'),
      due_on: date(),
      ...money('amount'),
      ...money('paid'),
      ...money('waived'),
      ...money('outstanding'),
      status: enumOf(IPF_INSTALMENT_STATUSES, 'waived: at early settlement; due: today'),
    }),
  ),
  payments: arr(
    obj({
      receipt_no: str(),
      method: str(),
      transaction_ref: str(),
      paid_at: timestamp(),
      ...money('amount'),
      allocations: arr(obj({ instalment: int(), ...money('amount') })),
    }),
  ),
  history: arr(obj({ from: str(), to: str(), reason: str(), by: str(), at: timestamp() })),
};

export const ipfLoanSchemas = {
  IpfQuoteRequest,
  IpfQuote: obj({
    ...money('premium'),
    start_date: date(),
    offers: arr(offer),
    ipf_reason: nullable(str('Why nothing is offered')),
  }),
  IpfLender: obj({
    id: int(),
    name: str(),
    pricing: enumOf(['rate_per_tenor', 'flat_fee_by_band']),
    deposit_rule: enumOf(['one_instalment', 'percent']),
    deposit_bps: nullable(int('percent: the deposit, basis points of the total repayable')),
    ...money('min_premium'),
    ...money('max_premium', true),
    grace_days: int('Days past a due date before an unpaid instalment defaults the loan'),
    tenors: arr(obj({ months: int(), charge_bps: int('rate_per_tenor: basis points of the premium') })),
    fee_bands: arr(obj({ ...money('up_to_premium', true), ...money('fee') })),
  }),
  IpfLoan: obj(loan),
  IpfLoanRecord: obj(detail),
};
