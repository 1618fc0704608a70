import { parsePrismaCursor } from '@pothos/plugin-prisma';
import {
  BREAK,
  type ArgumentNode,
  type DocumentNode,
  type GraphQLError,
  type GraphQLField,
  type GraphQLSchema,
  GraphQLInt,
  GraphQLString,
  getNamedType,
  isObjectType,
  TypeInfo,
  valueFromAST,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { prismaDatamodel } from '../db/datamodel.ts';
import {
  hasUnstorableText,
  jsonValueDepthExceeds,
  MAX_JSON_DEPTH,
  UNSTORABLE_TEXT,
  unstorableTextAt,
  unstorableTextError,
} from '../http/body.ts';
import { AppError, type FieldError, ValidationError } from '../lib/problem.ts';
import { toGraphQLError } from './errors.ts';

/**
 * Deepest bracket nesting ({, [, () the text of a GraphQL document may have. Field depth is limited separately
 * (GRAPHQL_MAX_DEPTH, checked after parsing); this bound only has to keep the recursive parser and the recursive
 * NUL check far from the end of the stack, with room for input-object literals inside a deep selection.
 */
export const MAX_DOCUMENT_NESTING = 64;

/**
 * The shape a GraphQL request must have before it runs (the params checks on HTTP; the cursor check wherever Yoga's
 * envelop executes, graphql-ws included, which must call requestShapeError itself):
 * - variables and extensions nest at most MAX_JSON_DEPTH levels and the document MAX_DOCUMENT_NESTING, checked before
 *   anything recursive sees them (a few thousand brackets otherwise overflow the stack in graphql-js's parser, in
 *   variable coercion or in JSON.stringify, and come back as internal_error). Must run before any plugin that walks
 *   params (rejectNulPlugin);
 * - no text PostgreSQL cannot store (U+0000, unpaired surrogates) anywhere in the document, variables or extensions;
 * - every `after`/`before` of a cursor connection is a cursor of that connection, and every connection's `first`/`last`
 *   at least 0 (422 validation_failed otherwise).
 * The REST facade does not pass through Yoga: its bodies are checked by parseJson, its cursors by pageArgs.
 */
export function requestShapePlugin(): Plugin {
  return {
    onParams({ params }) {
      const refused = requestShapeError(params);
      if (refused) throw refused;
    },
    // The text check above sees the document as sent; an escape in one of its strings (`"\u0000"`, `"\ud800"`) only
    // becomes such text once parsed, and then reached PostgreSQL (500). Only a document with a \u escape is walked.
    onParse({ params }) {
      const given = params.source as string | { body: string };
      const source = typeof given === 'string' ? given : given.body;
      if (!source.includes('\\u')) return;
      return ({ result, replaceParseResult }) => {
        if (result && !(result instanceof Error) && documentHasUnstorableText(result as DocumentNode))
          replaceParseResult(toGraphQLError(new AppError('invalid_request', { detail: UNSTORABLE_TEXT })));
      };
    },
    onExecute({ args, setResultAndStopExecution }) {
      const errors = cursorErrors(
        args.schema as GraphQLSchema,
        args.document as DocumentNode,
        args.variableValues as Record<string, unknown> | undefined,
      );
      if (errors.length) setResultAndStopExecution({ errors: [toGraphQLError(new ValidationError(errors))] });
    },
  };
}

/**
 * The params checks on their own (400 invalid_request as a GraphQL error, or null), for transports where Yoga's
 * onParams does not run: graphql-ws hands its params to the server's onSubscribe instead.
 */
export function requestShapeError(params: {
  query?: unknown;
  variables?: unknown;
  extensions?: unknown;
}): GraphQLError | null {
  const refuse = (detail: string) => toGraphQLError(new AppError('invalid_request', { detail }));
  if (jsonValueDepthExceeds(params.variables, MAX_JSON_DEPTH))
    return refuse(`Variables may nest at most ${MAX_JSON_DEPTH} levels deep`);
  if (jsonValueDepthExceeds(params.extensions, MAX_JSON_DEPTH))
    return refuse(`Extensions may nest at most ${MAX_JSON_DEPTH} levels deep`);
  if (typeof params.query === 'string' && documentNestingExceeds(params.query, MAX_DOCUMENT_NESTING)) {
    return refuse(`The document may nest braces, brackets and parentheses at most ${MAX_DOCUMENT_NESTING} levels deep`);
  }
  // In a variable it is the caller's value: 422 naming it (`input.lossPlace`), as REST names its field.
  const inVariables = unstorableTextAt(params.variables);
  if (inVariables !== null) return toGraphQLError(unstorableTextError(inVariables));
  if (hasUnstorableText([params.query, params.extensions])) return refuse(UNSTORABLE_TEXT);
  return null;
}

/** Whether a string value written in the document (an argument, a default value, a directive's) holds unstorable text. */
export function documentHasUnstorableText(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    StringValue(node) {
      if (hasUnstorableText(node.value)) {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** One pass over GraphQL source: brackets in strings, block strings and comments do not count. */
export function documentNestingExceeds(source: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '#') {
      while (i < source.length && source[i] !== '\n' && source[i] !== '\r') i++;
    } else if (c === '"') {
      if (source.startsWith('"""', i)) {
        // A block string's only escape is \""", which does not end it.
        for (i += 3; i < source.length && !source.startsWith('"""', i); i++) if (source.startsWith('\\"""', i)) i += 3;
        i += 2;
      } else {
        for (i++; i < source.length && source[i] !== '"' && source[i] !== '\n'; i++) if (source[i] === '\\') i++;
      }
    } else if (c === '{' || c === '[' || c === '(') {
      if (++depth > max) return true;
    } else if (c === '}' || c === ']' || c === ')') depth--;
  }
  return false;
}

/**
 * Why a connection cursor is not one this API could have issued, or null when it is. Cursors are Pothos' opaque
 * `base64("GPC:" + tagged value)`; every connection here pages on an integer id, and a cursor that decodes to the
 * wrong kind of value (a string, a fraction, a bigint for an Int column, a number past the column's range) would
 * otherwise reach the database as a query error and come back as internal_error.
 */
export function cursorProblem(cursor: string, idType: CursorIdType): string | null {
  let v: unknown;
  try {
    v = parsePrismaCursor(cursor);
  } catch {
    return 'not a cursor this API issued; use links.next or pageInfo.endCursor as given';
  }
  // Only the one spelling this API writes: Pothos reads `GPC:N:` with Number(), which takes `0x10`, `1e3`, `007`,
  // ` 5` and an empty payload (0) too (an outside check, 2026-12-02).
  if (Buffer.from(cursor, 'base64').toString('utf8') !== issuedSpelling(v))
    return 'not a cursor this API issued; use links.next or pageInfo.endCursor as given';
  const fits =
    idType === 'Int'
      ? typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= INT4_MAX
      : idType === 'BigInt'
        ? (typeof v === 'bigint' && v >= 0n && v <= INT8_MAX) ||
          (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)
        : typeof v === 'string';
  return fits ? null : 'not a cursor of this list; use links.next or pageInfo.endCursor as given';
}

/** How Pothos spells a cursor on `v` (`GPC:` and @pothos/core's tagged chunk), or null for a value it never pages on. */
function issuedSpelling(v: unknown): string | null {
  if (typeof v === 'number') return `GPC:N:${String(v)}`;
  if (typeof v === 'bigint') return `GPC:I:${v.toString()}`;
  if (typeof v === 'string') return `GPC:S:${v}`;
  return null;
}

export type CursorIdType = 'Int' | 'BigInt' | 'String';
const INT4_MAX = 2 ** 31 - 1;
const INT8_MAX = 2n ** 63n - 1n;

/**
 * The id type a connection field pages on, or null when it is not a Prisma connection. Every prismaConnection here
 * pages on its model's id (`cursor: 'id'`); Pothos keeps that option inside its resolver, so the type of the node
 * model's single-column id stands for it. A connection on another column would see its own cursors refused, which
 * the "its own cursors page" tests would show at once.
 */
function cursorIdType(field: GraphQLField<unknown, unknown>): CursorIdType | null {
  if (idTypes.has(field)) return idTypes.get(field)!;
  let out: CursorIdType | null = null;
  const conn = getNamedType(field.type);
  const hasCursorArgs = field.args.some((a) => a.name === 'after') && field.args.some((a) => a.name === 'before');
  if (hasCursorArgs && isObjectType(conn)) {
    const edges = conn.getFields().edges;
    const edge = edges && getNamedType(edges.type);
    const node = edge && isObjectType(edge) ? edge.getFields().node : undefined;
    const model = node && getNamedType(node.type).extensions?.pothosPrismaModel;
    const ids = typeof model === 'string' ? prismaDatamodel().models[model]?.fields.filter((f) => f.isId) : undefined;
    const type = ids?.length === 1 ? ids[0].type : undefined;
    out = type === 'Int' || type === 'BigInt' || type === 'String' ? type : null;
  }
  idTypes.set(field, out);
  return out;
}
const idTypes = new WeakMap<GraphQLField<unknown, unknown>, CursorIdType | null>();

/** Field errors for the after/before arguments of every cursor connection an operation selects. */
export function cursorErrors(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | null | undefined,
): FieldError[] {
  const errors: FieldError[] = [];
  for (const { arg, idType } of cursorArgs(schema, document)) {
    if (idType === 'size') {
      // A page size below 0: the connection plugins' own refusal is a library error (400 invalid_request), where
      // every other bound of an argument is a field error naming it (`offset`, REST's `limit`).
      const value = valueFromAST(arg.value, GraphQLInt, variables ?? {});
      if (typeof value === 'number' && value < 0)
        errors.push({ field: arg.name.value, code: 'too_small', message: 'must be at least 0' });
      continue;
    }
    const value = valueFromAST(arg.value, GraphQLString, variables ?? {});
    const problem = typeof value === 'string' ? cursorProblem(value, idType) : null;
    // The field code REST's `cursor` refusal carries (rest-compat/pagination.ts): one code for one mistake.
    if (problem) errors.push({ field: arg.name.value, code: 'invalid_value', message: problem });
  }
  return errors;
}

/**
 * The after/before arguments of the cursor connections a document selects, found once per document (Yoga caches
 * parsed documents, so a repeated operation skips the walk and only reads its variables).
 */
function cursorArgs(schema: GraphQLSchema, document: DocumentNode): PageArg[] {
  const cached = argsByDocument.get(document);
  if (cached) return cached;
  const found: PageArg[] = [];
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const def = typeInfo.getFieldDef();
        if (!def) return;
        // Any connection's page sizes (a field taking both `first` and `after`), and a cursor connection's cursors.
        if (def.args.some((a) => a.name === 'first') && def.args.some((a) => a.name === 'after'))
          for (const arg of node.arguments ?? [])
            if (arg.name.value === 'first' || arg.name.value === 'last') found.push({ arg, idType: 'size' });
        const idType = cursorIdType(def);
        if (!idType) return;
        for (const arg of node.arguments ?? [])
          if (arg.name.value === 'after' || arg.name.value === 'before') found.push({ arg, idType });
      },
    }),
  );
  argsByDocument.set(document, found);
  return found;
}
type PageArg = { arg: ArgumentNode; idType: CursorIdType | 'size' };
const argsByDocument = new WeakMap<DocumentNode, PageArg[]>();
