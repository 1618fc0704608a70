import type { UserRole } from '../generated/prisma/enums.ts';

/**
 * What each role of acting user may do. Writes ask `can(actor, ability)` as their first line; a refusal is
 * 403 actor_forbidden. Reads are governed by scopes and visibility, not abilities.
 */
export const ABILITIES = [
  'api_clients.manage',
  'agents.manage',
  'clients.write',
  'quotes.create',
  'policies.create',
  'webhooks.manage',
] as const;
export type Ability = (typeof ABILITIES)[number];

const BY_ROLE: Record<UserRole, ReadonlySet<Ability>> = {
  admin: new Set(ABILITIES),
  account_exec: new Set<Ability>(['clients.write', 'quotes.create', 'policies.create', 'webhooks.manage']),
  agent: new Set<Ability>(['clients.write', 'quotes.create', 'policies.create']),
  viewer: new Set<Ability>(),
};

export function roleCan(role: UserRole, ability: Ability): boolean {
  return BY_ROLE[role].has(ability);
}
