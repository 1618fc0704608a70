import type { Principal } from '../../auth/principal.ts';
import type { Context } from '../../context.ts';
import { Prisma, type Tx } from '../../db/client.ts';
import { planQuery, shapedAsPlanned } from '../../db/selection-sql.ts';
import { isUuid } from '../../lib/identifiers.ts';
import { notFound } from '../../lib/problem.ts';
import { access, type Reach } from '../../graphql/access.ts';
import { clientOwnership, ownTenant } from './client.visibility.ts';

/**
 * Which policies the caller may see, as a Prisma where-fragment: staff see all; an agent sees the policies they
 * created or sell, and those of the clients they own.
 */
export function policyVisibility(p: Principal | undefined): Prisma.PolicyWhereInput {
  if (!p) throw new Error('policyVisibility needs a principal');
  const a = p.actor;
  if (!a?.ownRecordsOnly) return ownTenant(p);
  return {
    ...ownTenant(p),
    OR: [{ createdByUserId: a.userId }, { salesPersonId: a.userId }, { client: clientOwnership(p) }],
  };
}

/**
 * An agent's reach of policyVisibility as an SQL condition on the policies table aliased `alias` (created or sold by
 * the agent, or of a client they own), for read models' statements (claims/read-model.ts); the tenant is the caller's
 * to name. Mirrors the Prisma fragment above; the read models' tests check the two agree, caller by caller.
 */
export function agentPolicyReachSql(userId: number, alias: string): Prisma.Sql {
  if (!/^[a-z_][a-z0-9_]*$/.test(alias)) throw new Error(`not an alias: ${alias}`);
  const a = Prisma.raw(alias);
  return Prisma.sql`(${a}.created_by_user_id = ${userId} OR ${a}.sales_person_id = ${userId} OR EXISTS (
    SELECT 1 FROM clients ko WHERE ko.id = ${a}.client_id AND (ko.created_by_user_id = ${userId} OR ko.sales_person_id = ${userId})))`;
}

/**
 * policyVisibility as an SQL condition on the policies table aliased `alias`, for the policy read
 * (src/db/selection-sql.ts): the same rule, the same organisation named. test/policy-read-model.test.ts checks that the
 * two let each caller (staff, an agent, another organisation) see exactly the same policies.
 */
export function policyVisibilitySql(p: Principal, alias: string): Prisma.Sql {
  if (!/^[a-z_][a-z0-9_]*$/.test(alias)) throw new Error(`not an alias: ${alias}`);
  const tenant = Prisma.sql`${Prisma.raw(alias)}.tenant_id = ${p.tenant.id}`;
  const a = p.actor;
  if (!a?.ownRecordsOnly) return tenant;
  return Prisma.sql`${tenant} AND ${agentPolicyReachSql(a.userId, alias)}`;
}

/** What the text of policyVisibilitySql(p) depends on: whether it adds an agent's reach (SelectionPlan.query's shape). */
export function policyVisibilityShape(p: Principal): 'tenant' | 'agent' {
  return p.actor?.ownRecordsOnly ? 'agent' : 'tenant';
}

/**
 * The policy `uuid` read by its selection's plan (src/db/selection-sql.ts) when the query is a selection the plan
 * covers, else null (the caller reads it with Prisma).
 */
function policyByUuid(tx: Tx, p: Principal, uuid: string, query: unknown): Promise<unknown> | null {
  const plan = planQuery(tx, 'Policy', 'p', query);
  if (!plan) return null;
  const where = Prisma.sql`WHERE p.uuid = ${uuid}::uuid AND ${policyVisibilitySql(p, 'p')}`;
  return plan.query(tx, policyVisibilityShape(p), where).then((rows) => rows[0] ?? null);
}

/**
 * The reach rule of the Policy type and of every record that hangs off one policy (debit and credit notes, vehicles,
 * levies, status history, endorsements, cancellations, renewal quotes, certificates): one batched check per request.
 */
export const policyReach: Reach = { model: 'policy', where: policyVisibility };

/** Policies and what hangs off them are read with either scope: a bind answers with the policy it made. */
export const POLICY_SCOPES = ['read', 'bind'] as const;

/** The access rule of every type whose rows belong to one policy (spread into its prismaObject options). */
export const onePolicy = access<{ policyId: number }>({
  scopes: POLICY_SCOPES,
  reach: { via: policyReach, id: (r) => r.policyId },
});

/**
 * The policy `uuid` if the caller may see it, else 404 (another tenant's is invisible through row-level security, an
 * agent's unseen one through policyVisibility): the one lookup every module uses to reach a policy by its public id.
 */
export async function visiblePolicy<Q extends Omit<Prisma.PolicyFindFirstArgs, 'where'>>(
  ctx: Context,
  uuid: string,
  query?: Q,
) {
  if (!isUuid(uuid)) throw notFound('Policy');
  const p = ctx.principal;
  if (!p) throw new Error('visiblePolicy needs a principal');
  const row = await ctx.tx(
    (tx) =>
      (policyByUuid(tx, p, uuid, query) as ReturnType<typeof tx.policy.findFirst<Q & { where: object }>> | null) ??
      tx.policy
        .findFirst({ ...(query ?? ({} as Q)), where: { AND: [{ uuid }, policyVisibility(p)] } })
        .then((row) => shapedAsPlanned(tx, 'Policy', query, row)),
    { readOnly: true },
  );
  if (!row) throw notFound('Policy');
  return row;
}
