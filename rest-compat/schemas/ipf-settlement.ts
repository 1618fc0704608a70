import { arr, bool, date, int, money, nullable, obj, str, oneOf, describe } from './builders.ts';
import { normalisePhone } from '../../src/lib/identifiers.ts';
import { KENYAN_MOBILE_MESSAGE, stkPushResponse } from './payment.ts';

/** The acknowledgement of the push collecting the payoff: POST /payment/stk/push's answer. */
const stkPush = stkPushResponse.shape.data;

/**
 * `POST /ipf/loans/{uuid}/early-settlement`: a quote reads neither field's value beyond `confirm`; a confirmation's
 * `phone`, when given, is a Kenyan mobile (the domain's normalisePhone and words).
 */
export const EarlySettlementInput = obj(
  {
    confirm: bool(
      'false, null or absent: the quote as of today, nothing changed; true: hold the figure and prompt the phone for the payoff',
    ).nullish(),
    phone: str(
      "The phone to prompt when confirming, any Kenyan format (default the client's); read only with confirm: true",
    ).nullish(),
  },
  [],
).superRefine((b, c) => {
  if (b.confirm === true && b.phone != null && normalisePhone(b.phone) === null)
    c.addIssue({ code: 'custom', path: ['phone'], message: KENYAN_MOBILE_MESSAGE, input: b.phone });
});

export const ipfSettlementSchemas = {
  EarlySettlementInput,
  EarlySettlement: obj({
    loan: obj({ uuid: str(), loan_no: str('IPF-YYYY-NNNNNN'), status: str('The loan after this call') }),
    status: oneOf(['quoted', 'confirmed']),
    as_of: date(),
    ...money('outstanding'),
    ...money('rebate'),
    ...money('payoff'),
    instalments_waived: arr(obj({ instalment: int('1 is the deposit'), due_on: date(), ...money('amount') })),
    valid_until: date(),
    payment: describe(
      nullable(stkPush),
      'The STK push collecting the payoff (confirmed only; null when nothing was left to pay)',
    ),
  }),
};
