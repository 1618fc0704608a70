import {
  type ASTVisitor,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FragmentDefinitionNode,
  getOperationAST,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { AppServices, Context } from '../context.ts';
import { enforceTokenRateLimit } from '../http/rate-limits.ts';
import { AppError, isAppError } from '../lib/problem.ts';
import { rateLimitHeaders } from '../lib/rate-limit.ts';
import { toGraphQLError } from './errors.ts';

/**
 * The response names (alias, else field name) an operation selects at its root, through fragment spreads and inline
 * fragments: each is one resolver run, so one request's worth of work. Fields sharing a response name merge into one
 * execution and count once; `__typename` costs nothing to answer and is left out. `@skip`/`@include` are ignored, so
 * a conditional field counts (the count never comes out lower than what runs).
 */
export function rootResponseNames(
  op: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): Set<string> {
  const names = new Set<string>();
  const entered = new Set<string>();
  const walk = (set: SelectionSetNode) => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        if (sel.name.value !== '__typename') names.add(sel.alias?.value ?? sel.name.value);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        walk(sel.selectionSet);
      } else {
        // A fragment selects the same names wherever it is spread; entering it once also ends a spread cycle (which
        // validation reports separately).
        const f = fragments.get(sel.name.value);
        if (f && !entered.has(f.name.value)) {
          entered.add(f.name.value);
          walk(f.selectionSet);
        }
      }
    }
  };
  walk(op.selectionSet);
  return names;
}

function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const m = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) m.set(d.name.value, d);
  return m;
}

/**
 * What an operation costs against the token's limit: one per root field, and at least one (every request costs).
 * Worked out once per parsed document and operation (Yoga caches parsed documents, so a repeated query is a lookup).
 */
export function operationCost(document: DocumentNode, operationName?: string | null): number {
  let byName = costs.get(document);
  if (!byName) costs.set(document, (byName = new Map<string, number>()));
  const key = operationName ?? '';
  let cost = byName.get(key);
  if (cost === undefined) {
    const op = getOperationAST(document, operationName);
    cost = op ? Math.max(1, rootResponseNames(op, fragmentsOf(document)).size) : 1;
    byName.set(key, cost);
  }
  return cost;
}
const costs = new WeakMap<DocumentNode, Map<string, number>>();

/** Refuses, at validation (so before anything runs or is charged), an operation selecting more than `max` root fields. */
function rootFieldCapRule(max: number) {
  return function RootFieldCap(context: ValidationContext): ASTVisitor {
    return {
      OperationDefinition(node) {
        const n = rootResponseNames(node, fragmentsOf(context.getDocument())).size;
        if (n > max) {
          const detail = `The operation selects ${n} root fields; the limit of ${max} per operation was exceeded (send several operations)`;
          context.reportError(toGraphQLError(new AppError('query_too_complex', { detail })));
        }
      },
    };
  };
}

type YogaContext = Context & { request?: Request };

/** What onExecute and onSubscribe both receive, as far as charging needs. */
interface OperationEvent {
  args: ExecutionArgs;
  setResultAndStopExecution(result: ExecutionResult): void;
}

/**
 * The token's per-minute limit for GraphQL, on every transport Yoga's envelop serves: HTTP (queries, mutations, SSE
 * subscriptions) and graphql-ws (src/graphql/websocket.ts runs operations through `yoga.getEnveloped`). Charged when an
 * operation is about to execute or subscribe, one unit per root field, all or nothing: a batch that does not fit in
 * what is left is refused whole (rate_limited, 429 over HTTP) and none of it runs. Over HTTP the decision's
 * RateLimit-* headers go on the response. REST does not pass through here: it runs one fixed operation per request
 * and counts that request in src/http/rest.ts.
 */
export function rateLimitPlugin(app: AppServices): Plugin {
  const headersOf = new WeakMap<Request, Record<string, string>>();
  // Envelop hands its hooks' callbacks as arrow functions, meant to be destructured.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const charge = async ({ args, setResultAndStopExecution }: OperationEvent): Promise<void> => {
    const ctx = args.contextValue as YogaContext;
    if (!ctx?.principal) return;
    try {
      const d = await enforceTokenRateLimit(app, ctx.principal, operationCost(args.document, args.operationName));
      if (ctx.request) headersOf.set(ctx.request, rateLimitHeaders(d));
    } catch (e) {
      if (!isAppError(e)) throw e;
      setResultAndStopExecution({ errors: [toGraphQLError(e)] });
    }
  };
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(rootFieldCapRule(app.config.graphqlMaxRootFields));
    },
    onExecute: charge,
    onSubscribe: charge,
    onResponse({ request, response }) {
      const headers = headersOf.get(request);
      if (headers) for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
    },
  };
}
