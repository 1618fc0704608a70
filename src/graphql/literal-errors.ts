import {
  type ASTNode,
  coerceInputValue,
  type DocumentNode,
  type FieldNode,
  type GraphQLError,
  type GraphQLInputType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  Kind,
  TypeInfo,
  type ValueNode,
  valueFromASTUntyped,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type { FieldError } from '../lib/problem.ts';
import { FIELD_ERROR_MESSAGES, refusalsAt } from './variable-errors.ts';

/** Whether a value written in the document holds a variable anywhere (its value is then the variables' check). */
function holdsVariable(node: ValueNode): boolean {
  if (node.kind === Kind.VARIABLE) return true;
  if (node.kind === Kind.LIST) return node.values.some(holdsVariable);
  if (node.kind === Kind.OBJECT) return node.fields.some((f) => holdsVariable(f.value));
  return false;
}

export interface LiteralRefusals {
  errors: FieldError[];
  /** The argument and field nodes the refusals cover: graphql-js's own errors about them are replaced. */
  covered: ASTNode[];
}

/**
 * The arguments an operation writes out in its text (`clients(first: "abc")`, `createClient(input: {phone: "…"})`),
 * checked as the variables are (src/graphql/variable-errors.ts: graphql-js's own coercion, the refusal read from the
 * schema's type at its position), so that graphql-js's validation of those values, whose messages quote the value
 * and name GraphQL types, is answered as the same 422 `validation_failed` with `{field, code, message}`. Paths start
 * at the argument's name (`input.name`). An argument holding a variable is left to the variables' check, and a
 * required argument left out is `required` at its name.
 */
export function literalErrors(schema: GraphQLSchema, document: DocumentNode): LiteralRefusals {
  const out = new Map<string, FieldError>();
  const covered: ASTNode[] = [];
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node: FieldNode) {
        const def = typeInfo.getFieldDef();
        if (!def) return;
        for (const arg of def.args) {
          const given = node.arguments?.find((a) => a.name.value === arg.name);
          const found: FieldError[] = [];
          if (!given) {
            if (isNonNullType(arg.type) && arg.defaultValue === undefined)
              found.push({ field: arg.name, code: 'required', message: 'required' });
          } else if (!holdsVariable(given.value)) {
            found.push(...quotedEnums(given.value, arg.type, arg.name));
            if (!found.length)
              coerceInputValue(valueFromASTUntyped(given.value), arg.type, (path, invalid) => {
                found.push(...refusalsAt(arg.type, path, invalid, arg.name));
              });
          }
          if (!found.length) continue;
          covered.push(given ?? node);
          for (const e of found) if (!out.has(e.field)) out.set(e.field, e);
        }
      },
    }),
  );
  return { errors: [...out.values()], covered };
}

/**
 * Enum values written in quotes (`clients(type: "individual")`): the untyped value is the string "individual", which
 * coercion takes (a variable's enum value is a string), while graphql-js's validation refuses the literal in words
 * that name the enum type. Refused here as `not_one_of` at its path, saying to write it without quotes. Likewise a
 * float literal at an Int (`not_a_whole_number`).
 */
function quotedEnums(node: ValueNode, type: GraphQLInputType, at: string): FieldError[] {
  const t = isNonNullType(type) ? type.ofType : type;
  if (isListType(t)) {
    if (node.kind !== Kind.LIST) return quotedEnums(node, t.ofType, at);
    return node.values.flatMap((v, i) => quotedEnums(v, t.ofType, `${at}.${i}`));
  }
  if (isInputObjectType(t) && node.kind === Kind.OBJECT) {
    const fields = t.getFields();
    return node.fields.flatMap((f) =>
      fields[f.name.value] ? quotedEnums(f.value, fields[f.name.value].type, `${at}.${f.name.value}`) : [],
    );
  }
  if (isEnumType(t) && node.kind === Kind.STRING) {
    const names = t.getValues().map((v) => v.name);
    return [{ field: at, code: 'not_one_of', message: `must be one of: ${names.join(', ')} (written without quotes)` }];
  }
  // A float literal where an Int goes (`first: 1e3`, `first: 1000.0`): graphql-js refuses it whatever its value, while
  // its untyped value (1000) would pass the coercion below, leaving graphql-js's own error about the literal.
  if (isScalarType(t) && t.name === 'Int' && node.kind === Kind.FLOAT)
    return [{ field: at, code: 'not_a_whole_number', message: FIELD_ERROR_MESSAGES.not_a_whole_number }];
  return [];
}

/** Whether a graphql-js validation error is about one of the covered nodes (it points at or inside one). */
export function isCovered(error: GraphQLError, covered: readonly ASTNode[]): boolean {
  const at = error.nodes?.[0]?.loc;
  if (!at) return false;
  return covered.some((n) => n.loc && (n === error.nodes![0] || (at.start >= n.loc.start && at.end <= n.loc.end)));
}
