import type { Tx } from '../../../db/client.ts';

/** A loan with what its events name: application, policy, client and lender. */
export async function loanWithParties(tx: Tx, loanId: number) {
  return tx.ipfLoan.findUniqueOrThrow({
    where: { id: loanId },
    include: {
      application: { select: { id: true, applicationNo: true, uuid: true, status: true } },
      policy: { select: { id: true, policyNo: true, uuid: true } },
      client: { select: { clientNo: true, phone: true } },
      lender: { select: { name: true } },
    },
  });
}

export type LoanWithParties = Awaited<ReturnType<typeof loanWithParties>>;

/** The fields every premium-finance event carries (catalogue-finance.ts ipfRef) for a signed loan. */
export function loanEventRef(l: LoanWithParties) {
  return {
    application_no: l.application.applicationNo,
    application_uuid: l.application.uuid,
    loan_no: l.loanNo,
    loan_uuid: l.uuid,
    policy_no: l.policy.policyNo,
    policy_uuid: l.policy.uuid,
    client_no: l.client.clientNo,
    lender: l.lender.name,
  };
}
