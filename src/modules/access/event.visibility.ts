import type { Principal } from '../../auth/principal.ts';
import type { Tx } from '../../db/client.ts';
import { isUuid } from '../../lib/identifiers.ts';
import { claimVisibility } from './claim.visibility.ts';
import { clientVisibility } from './client.visibility.ts';
import { prospectVisibility } from './prospect.visibility.ts';
import { policyVisibility } from './policy.visibility.ts';

/**
 * Whether the caller may hear of an event: staff hear every event of the tenant; an agent only those about a policy
 * (by `policy_uuid`) or a client (by `client_no`) they may see, and of a claim (`claim_uuid`) or prospect
 * (`prospect_uuid`) they may see, which decides alone when named. Events naming none of these are staff-only.
 */
export async function eventVisibleTo(tx: Tx, p: Principal, data: Record<string, unknown>): Promise<boolean> {
  return (await eventsVisibleTo(tx, p, [data]))[0];
}

/** What an event's data names that decides its reach: the first of claim, prospect, policy, client. */
function reachKey(
  data: Record<string, unknown>,
): { kind: 'claim' | 'prospect' | 'policy' | 'client'; key: string } | null {
  if (typeof data.claim_uuid === 'string') return { kind: 'claim', key: data.claim_uuid };
  if (typeof data.prospect_uuid === 'string') return { kind: 'prospect', key: data.prospect_uuid };
  if (typeof data.policy_uuid === 'string') return { kind: 'policy', key: data.policy_uuid };
  if (typeof data.client_no === 'string') return { kind: 'client', key: data.client_no };
  return null;
}

/**
 * `eventVisibleTo` for many events at once (a page of the event history): at most one query per kind of record
 * named (claims, prospects, policies, clients), whatever the number of events.
 */
export async function eventsVisibleTo(tx: Tx, p: Principal, datas: Record<string, unknown>[]): Promise<boolean[]> {
  if (!p.actor?.ownRecordsOnly) return datas.map(() => true);
  const keys = datas.map(reachKey);
  const wanted = (kind: string) => [...new Set(keys.filter((k) => k?.kind === kind).map((k) => k!.key))];
  const uuids = (kind: string) => wanted(kind).filter((u) => isUuid(u));
  const [claims, prospects, policies, clients] = [uuids('claim'), uuids('prospect'), uuids('policy'), wanted('client')];
  const seen = {
    claim: new Set(
      claims.length
        ? (
            await tx.claim.findMany({
              where: { uuid: { in: claims }, ...claimVisibility(p) },
              select: { uuid: true },
            })
          ).map((r) => r.uuid)
        : [],
    ),
    prospect: new Set(
      prospects.length
        ? (
            await tx.prospect.findMany({
              where: { uuid: { in: prospects }, ...prospectVisibility(p) },
              select: { uuid: true },
            })
          ).map((r) => r.uuid)
        : [],
    ),
    policy: new Set(
      policies.length
        ? (
            await tx.policy.findMany({
              where: { uuid: { in: policies }, ...policyVisibility(p) },
              select: { uuid: true },
            })
          ).map((r) => r.uuid)
        : [],
    ),
    client: new Set(
      clients.length
        ? (
            await tx.client.findMany({
              where: { clientNo: { in: clients }, ...clientVisibility(p) },
              select: { clientNo: true },
            })
          ).map((r) => r.clientNo)
        : [],
    ),
  };
  return keys.map((k) => !!k && seen[k.kind].has(k.key));
}
