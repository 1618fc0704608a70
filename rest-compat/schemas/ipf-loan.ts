import { z } from 'zod';
import { arr, date, dateInput, int, money, nullable, obj, str, timestamp, oneOf } from './builders.ts';

/** The finance module's lists, written out (the facade imports no module); test/ipf-loans-read.test.ts checks they match. */
export const IPF_LOAN_STATUSES = ['awaiting_deposit', 'active', 'settled', 'defaulted', 'cancelled'];
export const IPF_INSTALMENT_STATUSES = ['paid', 'due', 'overdue', 'waived', 'upcoming'];

/** The largest premium a quote takes (KES 1 billion), written out: src/modules/finance/quote.ts MAX_PREMIUM. */
const MAX_QUOTE_PREMIUM = 1_000_000_000;
/** The tenors premium finance offers at most, written out: IPF_RULES (src/modules/finance). */
const MIN_TENOR = 3;
const MAX_TENOR = 10;
const TENOR_RULE = `a whole number of months from ${MIN_TENOR} to ${MAX_TENOR}`;

/** `POST /ipf/quote`: each field may be null (absent); premium or policy, not both (the domain names premium). */
export const IpfQuoteRequest = obj(
  {
    premium: z
      .number()
      .refine(
        (v) => v > 0 && v <= MAX_QUOTE_PREMIUM,
        `a positive amount in whole shillings, at most ${MAX_QUOTE_PREMIUM.toLocaleString('en')}`,
      )
      .nullish()
      .describe('Whole shillings, more than 0 and at most 1,000,000,000 (or send policy)'),
    policy: str(
      'The uuid of a policy pending payment that the caller may see: its gross premium (also policy_uuid). One unknown, out of reach or not pending payment is 422 naming policy',
    ).nullish(),
    policy_uuid: str('The same as policy (legacy spelling)').nullish(),
    lender_id: z.int().nullish().describe('Only this lender (GET /ipf/lenders); one not on the panel is 422'),
    tenor_months: z
      .int()
      .refine((v) => v >= MIN_TENOR && v <= MAX_TENOR, TENOR_RULE)
      .nullish()
      .describe('Only this tenor, 3–10 months (one no lender offers is 422)'),
    start_date: dateInput('The deposit’s due date; default and earliest today').nullish(),
  },
  [],
  'premium or policy, not both (else 422 naming premium)',
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
