import type { AppServices } from '../../../context.ts';

/**
 * The lender's decision on one submitted application (queue ipf.decide; helper-owned: see README "Premium finance").
 * Records the call (ipf_lender_calls) before it is made, calls app.lender.rail.decide outside any transaction, then
 * applies the answer to a still-`submitted` application (approved | declined, ipf.decided).
 */
export async function decideApplication(
  _app: AppServices,
  _applicationId: number,
): Promise<'approved' | 'declined' | 'skipped'> {
  throw new Error('decideApplication: not implemented yet');
}
