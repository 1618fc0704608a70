/**
 * The rule for every reference that leaves the service for a rail (docs/architecture.md "Rails: references"): a
 * rail keys on it, across every organisation of the deployment, so it is unique across the deployment. A rail that
 * issues its own id (M-Pesa's CheckoutRequestID and ConversationID, the SMS gateway's message id, the registry's
 * certificate number) is keyed on that id; where we originate the key, it is a uuid (B2C OriginatorConversationID) or,
 * where the counterparty's staff read it beside our paperwork (the lender, the certificate registry), our number
 * prefixed by the organisation's code. Organisation codes are unique and never change (src/admin/organisations.ts),
 * and our numbers (loan, application, policy) are unique within one organisation only: IPF-2026-000001 exists once in
 * every organisation, `savannah/IPF-2026-000001` once in the deployment.
 */
export function orgRailReference(tenantCode: string, ourNumber: string): string {
  return `${tenantCode}/${ourNumber}`;
}
