import {
  coerceInputValue,
  type DocumentNode,
  type OperationDefinitionNode,
  TypeInfo,
  ValidationContext,
  type GraphQLInputType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInputType,
  isListType,
  isNonNullType,
  isScalarType,
  typeFromAST,
  type VariableDefinitionNode,
} from 'graphql';
import type { FieldError } from '../lib/problem.ts';
import { FIELD_ERROR_MESSAGES } from '../lib/field-errors.ts';
import { ZOD_FIELD_CODES } from '../lib/zod-issues.ts';

export { FIELD_ERROR_MESSAGES };

export type FieldErrorCode = keyof typeof FIELD_ERROR_MESSAGES | 'not_one_of' | (typeof ZOD_FIELD_CODES)[number];
/**
 * Every code a refused value can carry (`not_one_of`'s message lists the allowed values; `too_small`/`too_large`
 * come from a module's own bounds, src/lib/zod-issues.ts; `invalid_text` from the REST body check, src/http/body.ts).
 */
export const FIELD_ERROR_CODES: readonly FieldErrorCode[] = [
  ...(Object.keys(FIELD_ERROR_MESSAGES) as FieldErrorCode[]),
  'not_one_of',
  ...ZOD_FIELD_CODES,
];

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

const refusal = (field: string, code: FieldErrorCode, message?: string): FieldError => ({
  field,
  code,
  message: message ?? FIELD_ERROR_MESSAGES[code as keyof typeof FIELD_ERROR_MESSAGES],
});

/** A refused whole number: out of range when it is one, else not a whole number at all. */
function wholeNumber(field: string, value: unknown, min: number, max: number): FieldError[] {
  const outside = typeof value === 'number' && Number.isInteger(value) && (value < min || value > max);
  return outside
    ? [refusal(field, 'out_of_range', `must be a whole number from ${min} to ${max}`)]
    : [refusal(field, 'not_a_whole_number')];
}

/**
 * An operation's variables checked the way graphql-js coerces them (its own `coerceInputValue`, so what passes here
 * passes there), each refusal with its field path in the operation's spelling (`input.thirdParties.0.name`) and a
 * code. graphql-js reports a refusal by its position and the value found there; what was wrong is read from the
 * schema's type at that position, never from the wording of graphql-js's message, which quotes the caller's value.
 */
export function variableErrors(
  schema: GraphQLSchema,
  definitions: readonly VariableDefinitionNode[],
  inputs: Record<string, unknown> | undefined,
): FieldError[] {
  const out = new Map<string, FieldError>();
  const add = (e: FieldError) => {
    if (!out.has(e.field)) out.set(e.field, e);
  };
  for (const def of definitions) {
    const name = def.variable.name.value;
    const type = typeFromAST(schema, def.type);
    // An operation that names no input type does not validate, and is refused before variables are read.
    if (!type || !isInputType(type)) continue;
    const value = inputs?.[name];
    if (value === undefined) {
      if (!def.defaultValue && isNonNullType(type)) add(refusal(name, 'required'));
      continue;
    }
    coerceInputValue(value, type, (path, invalid) => {
      for (const e of refusalsAt(type, path, invalid, name)) add(e);
    });
  }
  return [...out.values()];
}

/**
 * A variable declared nullable with a default (`$x: Boolean = true`) may stand where a value is required (`@include(if:
 * $x)`, a required argument): the document validates, and an explicit null is then refused by graphql-js only where
 * the value is read, deep inside execution (for a nested field, inside the Prisma plugin's planning: a 500). Such a
 * null is refused here first, as `required` on the variable, the way a missing required variable is.
 */
export function nullsWhereRequired(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  inputs: Record<string, unknown> | undefined,
): FieldError[] {
  const nulls = (operation.variableDefinitions ?? [])
    .map((d) => d.variable.name.value)
    .filter((name) => inputs?.[name] === null);
  if (!nulls.length) return [];
  const context = new ValidationContext(schema, document, new TypeInfo(schema), () => undefined);
  const required = new Set(
    context
      .getRecursiveVariableUsages(operation)
      .filter((u) => u.type && isNonNullType(u.type))
      .map((u) => u.node.name.value),
  );
  return nulls.filter((name) => required.has(name)).map((name) => refusal(name, 'required'));
}

/**
 * What is wrong at `path` inside a value of `root`, from the type found there; `prefix` is the variable's or the
 * argument's name (src/graphql/literal-errors.ts checks an argument written in the document the same way).
 */
export function refusalsAt(
  root: GraphQLInputType,
  path: readonly (string | number)[],
  value: unknown,
  prefix: string,
): FieldError[] {
  const field = [prefix, ...path].join('.');
  const type = typeAt(root, path);
  if (!type) return [refusal(field, 'invalid_value')];
  if (value == null) return [refusal(field, 'required')];
  const t = isNonNullType(type) ? type.ofType : type;
  if (isInputObjectType(t)) {
    if (typeof value !== 'object' || Array.isArray(value)) return [refusal(field, 'not_an_object')];
    // graphql-js reports a missing or unknown member at the object holding it: name the member itself.
    const o = value as Record<string, unknown>;
    const fields = t.getFields();
    const missing = Object.values(fields)
      .filter((f) => o[f.name] === undefined && isNonNullType(f.type) && f.defaultValue === undefined)
      .map((f) => refusal(`${field}.${f.name}`, 'required'));
    const unknown = Object.keys(o)
      .filter((k) => !(k in fields))
      .map((k) => refusal(`${field}.${k}`, 'unknown_field'));
    const nulls = Object.values(fields)
      .filter((f) => o[f.name] === null && isNonNullType(f.type))
      .map((f) => refusal(`${field}.${f.name}`, 'required'));
    const found = [...missing, ...unknown, ...nulls];
    return found.length ? found : [refusal(field, 'invalid_value')];
  }
  if (isEnumType(t)) {
    return [
      refusal(
        field,
        'not_one_of',
        `must be one of: ${t
          .getValues()
          .map((v) => v.name)
          .join(', ')}`,
      ),
    ];
  }
  if (isScalarType(t)) {
    switch (t.name) {
      case 'String':
        return [refusal(field, 'not_a_string')];
      case 'Int':
        return wholeNumber(field, value, INT_MIN, INT_MAX);
      case 'Float':
        return [refusal(field, 'not_a_number')];
      case 'Boolean':
        return [refusal(field, 'not_a_boolean')];
      case 'ID':
        return [refusal(field, 'not_an_id')];
      default: {
        // A whole-number scalar of our own (the money scalars) is refused as Int is, within its own bounds.
        const range = t.extensions?.wholeNumberRange;
        if (Array.isArray(range)) return wholeNumber(field, value, Number(range[0]), Number(range[1]));
        const own = t.extensions?.invalidValue;
        return [refusal(field, 'invalid_value', typeof own === 'string' ? own : undefined)];
      }
    }
  }
  return [refusal(field, 'invalid_value')];
}

/**
 * The input type at a position of a value of `root` (list items by index, object members by name). A single value
 * where a list belongs is coerced as a list of one, and graphql-js then reports its members with no index.
 */
function typeAt(root: GraphQLInputType, path: readonly (string | number)[]): GraphQLInputType | null {
  let type: GraphQLInputType = root;
  for (const key of path) {
    let t: GraphQLInputType = isNonNullType(type) ? type.ofType : type;
    while (isListType(t) && typeof key === 'string') t = isNonNullType(t.ofType) ? t.ofType.ofType : t.ofType;
    if (isListType(t) && typeof key === 'number') type = t.ofType;
    else if (isInputObjectType(t) && typeof key === 'string' && t.getFields()[key]) type = t.getFields()[key].type;
    else return null;
  }
  return type;
}
