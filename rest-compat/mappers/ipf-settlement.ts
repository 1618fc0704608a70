import type { SettleIpfLoanEarlyMutation } from '../generated/operations.ts';
import type { Resolved } from '../route.ts';
import { minor, whole } from './money.ts';
import { stkPushToRest } from './payment.ts';

type EarlySettlement = Resolved<SettleIpfLoanEarlyMutation>['settleIpfLoanEarly'];

/** An early-settlement figure (quoted or confirmed) with the push collecting its payoff, in the REST spellings. */
export function earlySettlementToRest(s: EarlySettlement) {
  return {
    loan: { uuid: s.loanUuid, loan_no: s.loanNo, status: s.loanStatus },
    status: s.phase,
    as_of: s.asOf,
    outstanding: whole(s.outstanding),
    outstanding_minor: minor(s.outstanding),
    rebate: whole(s.rebate),
    rebate_minor: minor(s.rebate),
    payoff: whole(s.payoff),
    payoff_minor: minor(s.payoff),
    instalments_waived: s.instalmentsWaived.map((w) => ({
      instalment: w.instalment,
      due_on: w.dueOn,
      amount: whole(w.amount),
      amount_minor: minor(w.amount),
    })),
    valid_until: s.validUntil,
    payment: s.payment ? stkPushToRest(s.payment) : null,
  };
}
