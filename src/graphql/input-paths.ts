import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import { type GraphQLFieldResolver, type GraphQLResolveInfo, getNullableType, isInputObjectType } from 'graphql';
import { type FieldError, isAppError, validationDetail } from '../lib/problem.ts';

/**
 * One spelling for a refused field's path in GraphQL: from the root field's argument (`input.name`,
 * `input.vehicle.regNo`), as graphql-js and the variable checks spell it. A module's own check names the field from
 * inside its input (`name`, `amount`: one service serves both transports). So a refusal leaving a root field that
 * takes `input` has every path that names a field of the input (and does not start at one of the field's arguments)
 * put under `input.`. The REST spelling is unchanged: rest-compat/executor.ts drops the prefix again. Listed after the
 * errors plugin, so the typed `ValidationProblem` result carries the paths as rewritten.
 */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    interface Plugins<Types extends SchemaTypes> {
      inputPaths: InputPathsPlugin<Types>;
    }
  }
}

/**
 * `errors` with every path that starts at a field of the `input` argument (and not at one of the root field's
 * arguments) put under `input.`; the same array when none does. A path naming no input field (`otp` for the code a
 * sign-in sent, a refusal about the request as a whole) is left as it is.
 */
export function underInput(
  errors: readonly FieldError[],
  args: ReadonlySet<string>,
  inputFields: ReadonlySet<string>,
): readonly FieldError[] {
  let changed = false;
  const out = errors.map((e) => {
    const head = e.field.split('.', 1)[0];
    if (args.has(head) || !(inputFields.has(head) || inputFields.has(camel(head)))) return e;
    changed = true;
    // A module that reads its input in the REST spelling (the cover lines' normalisers: `insurer_ids`,
    // `items.0.sum_insured`) names it so: GraphQL's is the camelCase one, which the facade turns back exactly.
    return { ...e, field: `input.${e.field.split('.').map(camel).join('.')}` };
  });
  return changed ? out : errors;
}

/** snake_case → camelCase, for a segment written in lower case only (so the facade's `snake` gives it back as it was). */
const camel = (segment: string): string =>
  /[A-Z]/.test(segment) ? segment : segment.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

function inputFieldsOf(info: GraphQLResolveInfo): ReadonlySet<string> {
  const arg = info.parentType.getFields()[info.fieldName]?.args.find((a) => a.name === 'input');
  const type = arg && getNullableType(arg.type);
  return isInputObjectType(type) ? new Set(Object.keys(type.getFields())) : new Set();
}

function rewrite(err: unknown, args: ReadonlySet<string>, info: GraphQLResolveInfo): unknown {
  if (!isAppError(err) || !err.errors?.length) return err;
  const errors = underInput(err.errors, args, inputFieldsOf(info));
  if (errors === err.errors) return err;
  // The error is this request's own (services build one per refusal): its paths are changed where it stands, so its
  // class (the errors plugin's union member) and every other member stay as they are.
  const own = err as { errors: FieldError[]; detail: string; message: string };
  if (err.detail === validationDetail(err.errors)) own.detail = own.message = validationDetail(errors);
  own.errors = [...errors];
  return err;
}

export class InputPathsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    const root = fieldConfig.kind === 'Query' || fieldConfig.kind === 'Mutation';
    if (!root || !('input' in fieldConfig.args)) return resolver;
    const args = new Set(Object.keys(fieldConfig.args));
    return (parent, a, context, info) => {
      let result: unknown;
      try {
        result = resolver(parent, a, context, info);
      } catch (e) {
        throw rewrite(e, args, info);
      }
      if (result instanceof Promise)
        return result.catch((e: unknown) => {
          throw rewrite(e, args, info);
        });
      return result;
    };
  }
}

SchemaBuilder.registerPlugin('inputPaths', InputPathsPlugin);

export default 'inputPaths' as const;
