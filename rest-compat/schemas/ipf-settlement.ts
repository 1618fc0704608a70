import { arr, bool, date, int, money, nullable, obj, str, oneOf, describe } from './builders.ts';
import { stkPushResponse } from './payment.ts';
import { readAsObject } from './policy.ts';

/** The acknowledgement of the push collecting the payoff: POST /payment/stk/push's answer. */
const stkPush = stkPushResponse.shape.data;

/**
 * `POST /ipf/loans/{uuid}/early-settlement`. An organisation that does not offer premium finance is answered 403
 * ipf_not_offered whatever it sends, before the values are judged; so only each value's type is checked here (the
 * phone rule is the domain's, said in the description). A body that is not an object reads as `{}`, as before.
 */
export const EarlySettlementInput = readAsObject(
  obj(
    {
      confirm: bool(
        'false, null or absent: the quote as of today, nothing changed; true: hold the figure and prompt the phone for the payoff',
      ).nullish(),
      phone: str(
        "The phone to prompt when confirming, any Kenyan format (07…, 01…, +254…; another is 422 naming phone when confirming); default the client's",
      ).nullish(),
    },
    [],
  ),
);

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
