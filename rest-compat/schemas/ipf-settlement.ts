import { arr, bool, date, int, money, nullable, obj, str, oneOf, describe } from './builders.ts';
import { stkPushResponse } from './payment.ts';

/** The acknowledgement of the push collecting the payoff: POST /payment/stk/push's answer. */
const stkPush = stkPushResponse.shape.data;

export const ipfSettlementSchemas = {
  EarlySettlementInput: obj(
    {
      confirm: bool(
        'false or absent: the quote as of today, nothing changed; true: hold the figure and prompt the phone for the payoff',
      ),
      phone: str("The phone to prompt when confirming, any Kenyan format (default the client's)"),
    },
    [],
  ),
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
