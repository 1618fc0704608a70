import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { GraphQLFieldResolver, GraphQLResolveInfo } from 'graphql';
import { fromPlannedRow, ownColumns } from './column-fields.ts';

/**
 * The Pothos Prisma plugin finds what a parent's query preloaded for a field by the identity of graphql-js's
 * `info.path` links (a link is made once per field per row, and a child's `path.prev` is its parent's own link).
 * graphql-jit builds a fresh path object for every resolver call, so under it every relation would miss its preload
 * and load itself, a query per row. For an operation run compiled (rest-compat/executor.ts marks its context with
 * `runsCompiled`), this plugin hands every resolver the one canonical link of its response path instead — the same
 * object for the same position, as graphql-js would have given — and leaves graphql-js's own runs untouched.
 *
 * Listed before the Prisma plugin (its wrapper is inside this one's) and after scope-auth and errors.
 */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    interface Plugins<Types extends SchemaTypes> {
      compiledPaths: CompiledPathsPlugin<Types>;
    }
  }
}

type Path = GraphQLResolveInfo['path'];
const ROOT = {};
const runs = new WeakMap<object, Map<object, Map<string | number, Path>>>();

/** Marks `context` as one whose operation graphql-jit runs: its resolvers get canonical response paths. */
export function runsCompiled(context: object): void {
  runs.set(context, new Map());
}

function canonical(links: Map<object, Map<string | number, Path>>, path: Path | undefined): Path | undefined {
  if (!path) return undefined;
  const prev = canonical(links, path.prev);
  const parent = prev ?? ROOT;
  let byKey = links.get(parent);
  if (!byKey) links.set(parent, (byKey = new Map<string | number, Path>()));
  let link = byKey.get(path.key);
  if (!link) byKey.set(path.key, (link = { prev, key: path.key, typename: path.typename }));
  return link;
}

export class CompiledPathsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    // Only a root field (which records what its statement preloaded under its path) and the fields of Prisma types
    // (which look it up) use the path; a field resolved from its own row (column-fields.ts) looks it up only for a
    // row that lacks a column, and then a miss costs a load, never an answer.
    const root = fieldConfig.kind === 'Query' || fieldConfig.kind === 'Mutation' || fieldConfig.kind === 'Subscription';
    if (!root && fieldConfig.kind !== 'PrismaObject') return resolver;
    if (ownColumns(fieldConfig, this.buildCache)) return resolver;
    // A relation on a row a selection's plan answered resolves from the row (column-fields.ts): no lookup by path.
    const planned = fromPlannedRow(fieldConfig);
    return (parent, args, context, info) => {
      if (planned?.(parent, info)) return resolver(parent, args, context, info);
      const links = runs.get(context);
      // graphql-jit makes a fresh info object for every resolver call: it is this call's own to change.
      if (links) (info as { path: Path }).path = canonical(links, info.path)!;
      return resolver(parent, args, context, info);
    };
  }
}

SchemaBuilder.registerPlugin('compiledPaths', CompiledPathsPlugin);

export default 'compiledPaths' as const;
