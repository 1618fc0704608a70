import { builder } from '../../graphql/builder.ts';
import { nodeAccess } from '../../graphql/access.ts';
import { IPF_SCOPES, ipfApplicationReach } from '../access/ipf.visibility.ts';
import { APPLICATION_STATUSES, type ApplicationStatus } from './ipf-state.ts';

/**
 * Premium-finance applications (README "Premium finance"), seen exactly as their policy is; a SACCO or microfinance
 * organisation reads none (ipf_not_offered, enforced by the services and root fields).
 */

export const IpfApplicationStatusEnum = builder.enumType('IpfApplicationStatus', {
  values: APPLICATION_STATUSES as [ApplicationStatus, ...ApplicationStatus[]],
});

export const IpfApplicationRef = builder.prismaNode('IpfApplication', {
  ...nodeAccess<{ id: number }>(
    { scopes: IPF_SCOPES, reach: { via: ipfApplicationReach, id: (a) => a.id } },
    ipfApplicationReach,
  ),
  id: { field: 'id' },
  description: 'An application to finance one policy’s premium: the chosen offer, KYC, the lender’s decision, signing.',
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    uuid: t.exposeString('uuid'),
    applicationNo: t.exposeString('applicationNo'),
    status: t.field({ type: IpfApplicationStatusEnum, resolve: (a) => a.status as ApplicationStatus }),
  }),
});
