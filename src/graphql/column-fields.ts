import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { GraphQLFieldResolver } from 'graphql';

/**
 * A field of a Prisma type in select mode that reads only columns of its own row — an exposed column
 * (`t.exposeString('clientNo')`) or a field computed from a few (`select: { lossMinor: true }` beside its resolver) —
 * resolves straight from the row. The Prisma plugin still plans those columns into the row's query (the field's
 * select), but its per-field wrapper, which looks up the row's loader mapping by the response path on every such
 * field of every row (15 % of a page of clients' CPU, docs/performance.md), is passed over whenever the row carries
 * every column the field reads. A row that does not (loaded elsewhere with a narrower select) still goes through the
 * wrapper, which loads them: the answer is the same either way.
 *
 * Listed after the scope-auth and errors plugins and just before Prisma's, so their wrappers still run: only the
 * Prisma plugin's wrapper and Relay's inside it are passed over, and only for a field that takes no arguments, is not
 * an ID, and declares nothing either would act on.
 */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    interface Plugins<Types extends SchemaTypes> {
      columnFields: ColumnFieldsPlugin<Types>;
    }
  }
}

/** What such a field's options may hold for it to resolve straight from its row. */
const PLAIN_OPTIONS = new Set([
  'description',
  'nullable',
  'type',
  'extensions',
  'resolve',
  'deprecationReason',
  'select',
]);

type Resolver<Types extends SchemaTypes> = GraphQLFieldResolver<unknown, Types['Context'], object>;

export class ColumnFieldsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(resolver: Resolver<Types>, fieldConfig: PothosOutputFieldConfig<Types>): Resolver<Types> {
    const columns = ownColumns(fieldConfig, this.buildCache);
    if (!columns) return resolver;
    const exposed = fieldConfig.extensions?.pothosExposedField;
    if (typeof exposed === 'string' && columns.length === 1 && columns[0] === exposed) {
      return (parent, args, context, info) => {
        const value = (parent as Record<string, unknown>)[exposed];
        return value === undefined ? resolver(parent, args, context, info) : value;
      };
    }
    const own = fieldConfig.resolve as Resolver<Types> | undefined;
    if (!own) return resolver;
    return (parent, args, context, info) => {
      const row = parent as Record<string, unknown>;
      for (const c of columns) if (row[c] === undefined) return resolver(parent, args, context, info);
      return own(parent, args, context, info);
    };
  }
}

/** The columns a field reads, when they are all scalar columns of its own row and it declares nothing else. */
export function ownColumns<Types extends SchemaTypes>(
  fieldConfig: PothosOutputFieldConfig<Types>,
  buildCache: BasePlugin<Types>['buildCache'],
): string[] | null {
  if (fieldConfig.kind !== 'PrismaObject' || Object.keys(fieldConfig.args).length) return null;
  if (fieldConfig.type.kind === 'Scalar' && fieldConfig.type.ref === 'ID') return null;
  const select = fieldConfig.extensions?.pothosPrismaSelect as Record<string, unknown> | undefined;
  if (!select || typeof select !== 'object') return null;
  for (const key of Object.keys(fieldConfig.pothosOptions)) if (!PLAIN_OPTIONS.has(key)) return null;
  const relations = (
    buildCache.getTypeConfig(fieldConfig.parentType).extensions?.pothosPrismaFieldMap as
      { relations: Map<string, unknown> } | undefined
  )?.relations;
  const columns = Object.keys(select);
  if (!columns.length || !relations) return null;
  for (const c of columns) if (select[c] !== true || relations.has(c) || c === '_count') return null;
  return columns;
}

SchemaBuilder.registerPlugin('columnFields', ColumnFieldsPlugin);

export default 'columnFields' as const;
