import DataLoader from 'dataloader';
import type { Principal } from '../auth/principal.ts';
import { ALL_SCOPES, type Scope } from '../auth/scopes.ts';
import type { Context } from '../context.ts';
import type { Tx } from '../db/client.ts';
import { AppError } from '../lib/problem.ts';

/**
 * Who may see a GraphQL object type, declared once on the type and applied by every path that reaches a value of
 * it: root fields, `node`/`nodes`, nested relations and subscription events. The rule runs as the type's
 * `isTypeOf` (Pothos scope-auth `runScopesOnType`), so a refused value fails the field that returned it, never
 * just its fields one by one. Three questions, in order:
 *
 * 1. scopes: the token must hold one of them (403 insufficient_scope);
 * 2. staffOnly: a caller who sees only their own records (an agent) may not see the type at all (403 actor_forbidden);
 * 3. reach: for such a caller, the record must be within reach (404 not_found, exactly like a missing record).
 *    Reach is decided by a where-fragment on one model (the record itself, or the policy a child row hangs off),
 *    checked in one batched query per model per request, so a list of policies with their notes, vehicles and
 *    certificates costs an agent one extra statement, and staff none.
 */
export interface Reach {
  /** Prisma delegate name of the model the fragment applies to. */
  model: 'client' | 'policy' | 'receipt' | 'claim' | 'prospect' | 'ipfApplication' | 'ipfLoan';
  where(p: Principal): object;
}

export interface AccessRule<Row> {
  scopes: readonly Scope[];
  staffOnly?: boolean;
  reach?:
    | { via: Reach; id(row: Row): number | null }
    | {
        check(tx: Tx, p: Principal, row: Row): Promise<boolean>;
        /** True when this row was already checked for `p` (a list that filtered by the same rule): no second query. */
        checked?(p: Principal, row: Row): boolean;
      };
}

/**
 * Spread into the options of a root field, or of a field of a type with an access rule, every record of which
 * (directly, or through types without a rule of their own: a connection and its edges, a checklist) is within the
 * caller's reach whenever the record the field hangs off is: a root field whose statement applies the type's
 * visibility fragment, a policy's debit notes (rows of a policy within reach are within reach by the rule itself),
 * a policy's policyholder (clientVisibility admits the holder of every policy within reach). A mark on a field of a
 * type without a rule counts for nothing: mark the root that made it. An operation whose every way to a record with
 * a reach rule goes through such fields runs for an agent compiled without the rules (rest-compat/executor.ts
 * reachGaps): the rules would have said yes to every row. A wrong mark shows an agent a record out of reach, so
 * mark only what the data model guarantees; test/agent-compiled.test.ts reads agents' answers against GraphQL's.
 */
export const KEEPS_REACH = { extensions: { keepsReach: true } } as const;

/** Any scope at all: reference data that every integration needs (insurers for a quote, staff for a client). */
export const ANY_SCOPE: readonly Scope[] = ALL_SCOPES;

/** Spread into a prismaObject/prismaNode's options: the type's one authorization rule. */
export function access<Row>(rule: AccessRule<Row>) {
  return {
    runScopesOnType: true as const,
    authScopes: (row: Row, ctx: Context) => authorizeRow(ctx, rule, row),
    // Read by the REST facade's compiler (rest-compat/executor.ts): which rules an operation's types carry.
    extensions: { accessRule: rule as AccessRule<never> },
  };
}

/**
 * Whether `rule` lets `p` see every record of its type whatever the row: a caller who sees all of the organisation's
 * records (not an agent) holding one of its scopes. For such a caller the rule is always yes, synchronously, so an
 * operation whose every rule says so may run without them (rest-compat/executor.ts compiles it so).
 */
export function seesWholeType(p: Principal | undefined, rule: AccessRule<never>): boolean {
  return !!p && !ownRecordsOnly(p) && rule.scopes.some((s) => p.scopes.has(s));
}

/**
 * Whether `rule` lets `p`, an agent (who sees only the records within their reach), see every record of its type
 * that an operation reaches only through fields that keep reach (KEEPS_REACH): `p` holds one of its scopes and the
 * type is not for staff only. For such a caller and operation the rule says yes to every row it is asked about, so
 * the operation may run without it (rest-compat/executor.ts).
 */
export function seesWithinReach(p: Principal | undefined, rule: AccessRule<never>): boolean {
  return !!p && ownRecordsOnly(p) && !rule.staffOnly && rule.scopes.some((s) => p.scopes.has(s));
}

/**
 * Spread into a prismaNode's options: the type's rule (as `access`), and `node(id:)`/`nodes(ids:)` answering null for
 * an id that is missing, of another organisation (row-level security) or, when `own` is given, out of the caller's
 * reach: the lookup itself carries the reach fragment, so such a record reads exactly like a missing one.
 */
export function nodeAccess<Row>(rule: AccessRule<Row>, own?: Reach) {
  return {
    ...access(rule),
    nullable: true as const,
    ...(own
      ? {
          findUnique: (id: string, ctx: Context) => {
            const n = Number(id);
            return {
              id: Number.isSafeInteger(n) ? n : -1,
              AND: [ctx.principal ? own.where(ctx.principal) : { id: -1 }],
            };
          },
        }
      : {}),
  };
}

function requirePrincipal(ctx: Context): Principal {
  if (!ctx.principal) throw new AppError('unauthenticated', { detail: 'Send Authorization: Bearer <access token>' });
  return ctx.principal;
}

function ownRecordsOnly(p: Principal): boolean {
  return !!p.actor?.ownRecordsOnly;
}

/** Synchronous for staff (the common case: no promise per record on a hot list); a reach check is one batched load. */
function authorizeRow<Row>(ctx: Context, rule: AccessRule<Row>, row: Row): boolean | Promise<boolean> {
  const p = requirePrincipal(ctx);
  if (!rule.scopes.some((s) => p.scopes.has(s))) {
    throw new AppError('insufficient_scope', {
      detail: `This record needs the ${rule.scopes.map((s) => `'${s}'`).join(' or ')} scope`,
      extra: { required_scopes: [...rule.scopes] },
    });
  }
  if (!ownRecordsOnly(p)) return true;
  if (rule.staffOnly) throw new AppError('actor_forbidden', { detail: 'Agents may not see this kind of record' });
  const r = rule.reach;
  if (!r) return true;
  if ('check' in r && r.checked?.(p, row)) return true;
  const visible = 'via' in r ? withinReach(ctx, r.via, r.id(row)) : ctx.tx((tx) => r.check(tx, p, row));
  return visible.then((ok) => {
    if (!ok) throw new AppError('not_found', { detail: 'No such record' });
    return true;
  });
}

/**
 * The record of a to-one relation that may lead out of reach, for a field that is to keep reach (KEEPS_REACH): the
 * record when the caller may see it, else null, as `node(id:)` answers for a record out of reach. A policy's renewal
 * is one: an agent who sells a policy may not sell its renewal. Staff get the record with no statement; an agent's
 * check is the type's own batched one (withinReach), which the type's rule then finds already made.
 */
export function visibleOrNull<R extends { id: number }>(
  ctx: Context,
  reach: Reach,
  row: R | null,
): R | null | Promise<R | null> {
  if (!row) return null;
  if (!ownRecordsOnly(requirePrincipal(ctx))) return row;
  return withinReach(ctx, reach, row.id).then((ok) => (ok ? row : null));
}

const loaders = new WeakMap<Context, Map<string, DataLoader<number, boolean>>>();

function withinReach(ctx: Context, r: Reach, id: number | null): Promise<boolean> {
  if (id == null) return Promise.resolve(false);
  let byModel = loaders.get(ctx);
  if (!byModel) loaders.set(ctx, (byModel = new Map<string, DataLoader<number, boolean>>()));
  let loader = byModel.get(r.model);
  if (!loader) {
    const p = requirePrincipal(ctx);
    loader = new DataLoader<number, boolean>(async (ids) => {
      const rows = await ctx.tx((tx) =>
        (tx[r.model] as unknown as { findMany(a: object): Promise<{ id: number }[]> }).findMany({
          where: { id: { in: [...ids] }, AND: [r.where(p)] },
          select: { id: true },
        }),
      );
      const seen = new Set(rows.map((x) => x.id));
      return ids.map((i) => seen.has(i));
    });
    byModel.set(r.model, loader);
  }
  return loader.load(id);
}
