import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type DocumentNode, execute, GraphQLError, type GraphQLSchema, parse, validate } from 'graphql';
import type { Context } from '../src/context.ts';
import { AppError, type FieldError, isAppError, ValidationError } from '../src/lib/problem.ts';
import type { RestRoute } from './route.ts';

const OPERATIONS_DIR = path.join(import.meta.dirname, 'operations');

export interface CompiledRoute {
  route: RestRoute;
  document: DocumentNode;
  matcher: RegExp;
  paramNames: string[];
}

/** Parses and validates every route's operation once, at start: a broken mapping fails the boot, not a request. */
export function compileRoutes(schema: GraphQLSchema, routes: RestRoute[]): CompiledRoute[] {
  return routes.map((route) => {
    const text = readFileSync(path.join(OPERATIONS_DIR, `${route.operation}.graphql`), 'utf8');
    const document = parse(text);
    const errors = validate(schema, document);
    if (errors.length) throw new Error(`REST route ${route.method} ${route.path}: operation ${route.operation} is invalid: ${errors[0]!.message}`);
    const paramNames: string[] = [];
    const pattern = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
      paramNames.push(name);
      return '([^/]+)';
    });
    return { route, document, matcher: new RegExp(`^${pattern}/?$`), paramNames };
  });
}

/** `Variable "$input" got invalid value 1 at "input.name"; String cannot…` → field `input.name`. */
function coercionFieldError(e: GraphQLError): FieldError | null {
  const m = /^Variable "\$(\w+)" (?:got invalid value .*? at "([^"]+)"|of required type .* was not provided|got invalid value)/s.exec(e.message);
  if (!m) return null;
  const field = (m[2] ?? m[1]!).replace(/^input\./, '');
  const reason = e.message.split('; ').slice(1).join('; ') || e.message;
  return { field, message: reason.replace(/^Field "\w+" of required type "[^"]+" was not provided\.?/, 'required') };
}

/** Rebuilds the AppError of a typed failure result (any root field whose __typename is a Problem). */
function problemFromResult(value: unknown): AppError | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  if (typeof v.__typename !== 'string' || !v.__typename.endsWith('Problem') || typeof v.code !== 'string') return null;
  const errors = (v.fieldErrors as FieldError[] | undefined) ?? undefined;
  if (v.code === 'validation_failed') return new ValidationError(errors ?? [], v.detail as string);
  const { __typename, code, status, title, detail, fieldErrors, ...extra } = v;
  return new AppError(code as never, { detail: detail as string, status: status as number, errors: errors?.length ? errors : undefined, extra });
}

export async function runOperation(schema: GraphQLSchema, compiled: CompiledRoute, ctx: Context, variables: Record<string, unknown>) {
  const result = await execute({ schema, document: compiled.document, contextValue: ctx, variableValues: variables });
  if (result.errors?.length) {
    const first = result.errors[0]!;
    if (isAppError(first.originalError)) throw first.originalError;
    const fieldErrors = result.errors.map(coercionFieldError).filter((x): x is FieldError => !!x);
    if (fieldErrors.length) throw new ValidationError(fieldErrors);
    ctx.log.error({ err: first.originalError ?? first, operation: compiled.route.operation }, 'REST operation failed');
    throw new AppError('internal_error');
  }
  const data = (result.data ?? {}) as Record<string, unknown>;
  for (const value of Object.values(data)) {
    const problem = problemFromResult(value);
    if (problem) throw problem;
  }
  return data;
}
