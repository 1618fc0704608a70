import type { UserRole } from '../generated/prisma/enums.ts';

/**
 * What each role of acting user may do. Writes ask `can(actor, ability)` as their first line; a refusal is
 * 403 actor_forbidden. Reads are governed by scopes and visibility, not abilities. Agents register claims but do not
 * adjudicate them (claims.manage: move, reserve, assess, approve, pay). SMS (sms.send) goes out under the
 * organisation's sender ID and its outbox holds every client's number: admins and account executives send, agents do
 * not (they neither send nor read the outbox); sms.manage (sender IDs, top-ups, templates) is the admin's, as is
 * sandbox.clock (advancing a sandbox organisation's clock).
 */
export const ABILITIES = [
  'api_clients.manage',
  'agents.manage',
  'clients.write',
  'quotes.create',
  'policies.create',
  'webhooks.manage',
  'claims.register',
  'claims.manage',
  'prospects.write',
  'sms.send',
  'sms.manage',
  'sandbox.clock',
] as const;
export type Ability = (typeof ABILITIES)[number];

const BY_ROLE: Record<UserRole, ReadonlySet<Ability>> = {
  admin: new Set(ABILITIES),
  account_exec: new Set<Ability>([
    'clients.write',
    'quotes.create',
    'policies.create',
    'webhooks.manage',
    'claims.register',
    'claims.manage',
    'prospects.write',
    'sms.send',
  ]),
  agent: new Set<Ability>(['clients.write', 'quotes.create', 'policies.create', 'claims.register', 'prospects.write']),
  viewer: new Set<Ability>(),
};

export function roleCan(role: UserRole, ability: Ability): boolean {
  return BY_ROLE[role].has(ability);
}
