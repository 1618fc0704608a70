/** Who an application or a loan is about, as both records show it: the policy, the client and the lender. */
export function ipfPartiesToRest(x: {
  policyUuid: string;
  policyNo: string;
  clientNo: string;
  clientName: string;
  lenderId: number;
  lenderName: string;
}) {
  return {
    policy: { uuid: x.policyUuid, policy_no: x.policyNo },
    client: { client_no: x.clientNo, name: x.clientName },
    lender: { id: x.lenderId, name: x.lenderName },
  };
}
