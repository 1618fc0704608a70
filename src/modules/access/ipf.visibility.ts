import { ownTenant } from './client.visibility.ts';
import type { Principal } from '../../auth/principal.ts';
import type { Prisma } from '../../db/client.ts';
import { access, type Reach } from '../../graphql/access.ts';
import { policyVisibility } from './policy.visibility.ts';

/**
 * Premium-finance applications and loans are seen exactly as their policy is (docs/api-conventions.md "Visibility"): an agent limited to
 * their own records sees those of the policies they may see; staff see the organisation's.
 */
export function ipfApplicationVisibility(p: Principal | undefined): Prisma.IpfApplicationWhereInput {
  const policy = policyVisibility(p); // refuses a missing principal
  return { ...ownTenant(p!), policy };
}

export function ipfLoanVisibility(p: Principal | undefined): Prisma.IpfLoanWhereInput {
  const policy = policyVisibility(p); // refuses a missing principal
  return { ...ownTenant(p!), policy };
}

/** The reach rules of the application and loan types (node lookups carry them: an unseen one reads as missing). */
export const ipfApplicationReach: Reach = { model: 'ipfApplication', where: ipfApplicationVisibility };
export const ipfLoanReach: Reach = { model: 'ipfLoan', where: ipfLoanVisibility };

/** Premium finance is read with `read` (an integration that services policies) or `bind` (the one that sells them). */
export const IPF_SCOPES = ['read', 'bind'] as const;

/** The access rule of every type whose rows belong to one loan (instalments, allocations). */
export const oneLoan = access<{ loanId: number }>({
  scopes: IPF_SCOPES,
  reach: { via: ipfLoanReach, id: (r) => r.loanId },
});
