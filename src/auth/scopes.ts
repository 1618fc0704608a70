/**
 * Every scope an API client can hold. The spec names the first five; `admin` (service-only) guards organisation
 * settings: API clients and agent keys.
 */
export const SCOPES = {
  read: 'Read reference data, clients, policies and the caller identity',
  quote: 'Price covers and save quotes',
  bind: 'Bind policies and collect premiums',
  crm: 'Create and change clients and prospects',
  webhooks: 'Manage webhook endpoints and deliveries',
  admin: 'Manage API clients and agent keys (service-only)',
} as const;
export type Scope = keyof typeof SCOPES;
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];
export const isScope = (s: string): s is Scope => Object.hasOwn(SCOPES, s);
