import { OpenApiBuilder, type OperationObject, type ResponsesObject } from 'openapi3-ts/oas31';
import { SCOPES } from '../src/auth/scopes.ts';
import { FIELD_ERROR_CODES } from '../src/graphql/variable-errors.ts';
import { PROBLEM_CATALOGUE, type ProblemCode } from '../src/lib/problem.ts';
import type { AnyRoute } from './route.ts';
import { ROUTES } from './routes/index.ts';
import { arr, int, obj, oneOf, str } from './schemas/builders.ts';
import { COMPONENT_SCHEMAS } from './schemas/index.ts';
import { componentSchemas, jsonSchemaOf, type PathItemWithZod, withJsonSchemas } from './schemas/json-schema.ts';
import { b2cResultPaths } from './schemas/claim-payment.ts';
import { stkCallbackPaths } from './schemas/payment.ts';
import { smsReportPaths } from './schemas/sms.ts';
import { addExamples, problemExample } from './examples.ts';
import { addRecordedExamples } from './examples/apply.ts';
import { documentIntroduction } from './openapi-guide.ts';
import { type WebhookEventDoc, webhookItems } from './webhook-events.ts';

const COMMON_ERRORS: ProblemCode[] = [
  'unauthenticated',
  'invalid_token',
  'tenant_inactive',
  'actor_disabled',
  'insufficient_scope',
  'agent_denied',
  'rate_limited',
  // Any operation may answer these: a fault of ours (logged with the request id), or the organisation's share of the
  // database busy (Retry-After; docs/api-conventions.md "Each organisation's share").
  'internal_error',
  'service_unavailable',
  // Read before any route is chosen: a request line and headers over the limit (a long query string), or a request
  // not received in time (docs/api-conventions.md, the status table).
  'headers_too_large',
  'request_timeout',
];

const problemRef = { $ref: '#/components/schemas/Problem' };

/** Problems whose body carries more than the common members. */
const SPECIAL_PROBLEMS: Partial<Record<ProblemCode, string>> = {
  duplicate_client: 'DuplicateClientProblem',
  premium_mismatch: 'PremiumMismatchProblem',
};

function problemResponses(codes: ProblemCode[]): ResponsesObject {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const c of new Set(codes)) {
    const s = PROBLEM_CATALOGUE[c].status;
    byStatus.set(s, [...(byStatus.get(s) ?? []), c]);
  }
  if (codes.includes('tenant_inactive'))
    byStatus.set(401, [...new Set<ProblemCode>([...(byStatus.get(401) ?? []), 'tenant_inactive'])]);
  const out: ResponsesObject = {};
  for (const [status, cs] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const specials = cs.map((c) => SPECIAL_PROBLEMS[c]).filter((x): x is string => !!x);
    const schema = specials.length
      ? // anyOf, not oneOf: a specialised problem is a Problem too, so a real body matches both branches.
        { anyOf: [...specials.map((n) => ({ $ref: `#/components/schemas/${n}` })), problemRef] }
      : problemRef;
    out[String(status)] = {
      description: cs.map((c) => `\`${c}\`: ${PROBLEM_CATALOGUE[c].title}`).join('; '),
      headers:
        status === 429 || status === 503 ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : undefined,
      content: { 'application/problem+json': { schema, example: problemExample(cs[0]) } },
    };
  }
  return out;
}

const rateHeaders = {
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
};

/**
 * The OpenAPI 3.1 document, generated from the same route table the router serves, with `webhooks` for the given
 * events (the catalogue of src/modules/events, passed in since the facade imports no module) and an example for every
 * request and response.
 */
export function buildOpenApi(events: readonly WebhookEventDoc[] = []): Record<string, unknown> {
  const b = documentHead();
  for (const [name, item] of Object.entries(webhookItems(events))) b.addWebhook(name, item);
  const components = componentSchemas();
  for (const name of Object.keys(COMPONENT_SCHEMAS)) b.addSchema(name, components[name]);
  addSharedComponents(b);
  addTransportPaths(b);
  const paths = new Map<string, Record<string, OperationObject>>();
  for (const r of ROUTES) {
    const entry = paths.get(r.path) ?? {};
    entry[r.method.toLowerCase()] = routeOperation(r);
    paths.set(r.path, entry);
  }
  for (const [p, ops] of [...paths].sort((a, b) => a[0].localeCompare(b[0]))) b.addPath(p, ops);
  const spec = structuredClone(b.getSpec());
  // Hand-written request examples and captured answers first (rest-compat/examples/); the sampler fills the rest.
  addRecordedExamples(spec.paths, spec.components);
  addExamples(spec.paths, spec.components?.schemas);
  addExamples(spec.webhooks, spec.components?.schemas);
  return spec as unknown as Record<string, unknown>;
}

/** Info, servers, security schemes and the two schemas every document has (Problem, TokenResponse). */
function documentHead(): OpenApiBuilder {
  return OpenApiBuilder.create()
    .addOpenApiVersion('3.1.0')
    .addTitle('Bima Gateway API')
    .addVersion('1.0.0')
    .addDescription(documentIntroduction())
    .addServer({ url: '/api/v1' })
    .addSecurityScheme('bearer', { type: 'http', scheme: 'bearer', description: 'Access token from POST /oauth/token' })
    .addSecurityScheme('oauth2', {
      type: 'oauth2',
      flows: { clientCredentials: { tokenUrl: '/api/v1/oauth/token', scopes: { ...SCOPES } } },
    })
    .addSchema('Problem', problemSchema())
    .addSchema(
      'TokenResponse',
      jsonSchemaOf(
        obj({
          access_token: str(),
          token_type: oneOf(['Bearer']),
          expires_in: int('Seconds (86400 by default)'),
          scope: str('Space-separated granted scopes'),
        }),
      ),
    );
}

/** The common problem document (RFC 9457 with our members). */
function problemSchema() {
  return jsonSchemaOf(
    obj(
      {
        type: str('URI of the problem type'),
        title: str(),
        status: int(),
        detail: str(),
        code: { type: 'string', enum: Object.keys(PROBLEM_CATALOGUE), description: 'Stable machine-readable code' },
        instance: str('Path of the request'),
        request_id: str(),
        errors: arr(
          obj(
            {
              field: str(
                'Dotted path in the request body, in its own spelling (e.g. `loss_place`, `vehicles.0.regno`)',
              ),
              message: str('Plain words for a person; never parse it'),
              code: {
                type: 'string',
                enum: [...FIELD_ERROR_CODES],
                description:
                  'Present when the value itself was refused for its shape or bounds (missing, wrong type, not one of the ' +
                  'allowed values, too small or too large, text with NUL or a lone surrogate)',
              },
            },
            ['field', 'message'],
          ),
        ),
      },
      ['type', 'title', 'status', 'detail', 'code', 'request_id'],
    ),
  );
}

/** The headers and parameters operations refer to by $ref. */
function addSharedComponents(b: OpenApiBuilder): void {
  const headers: Record<string, { description: string; schema: unknown }> = {
    'X-Request-Id': { description: 'Request id (a sane incoming X-Request-Id is kept)', schema: str() },
    'Retry-After': { description: 'Seconds to wait before retrying', schema: int() },
    'RateLimit-Limit': { description: 'Requests allowed in the window', schema: int() },
    'RateLimit-Remaining': { description: 'Requests left in the window', schema: int() },
    'RateLimit-Reset': { description: 'Seconds until capacity frees up', schema: int() },
    'RateLimit-Policy': { description: 'Limit and window, e.g. `60;w=60`', schema: str() },
    'Idempotent-Replayed': {
      description: '`true` when the response is a replay of the first one for this Idempotency-Key',
      schema: str(),
    },
  };
  for (const [name, h] of Object.entries(headers)) b.addHeader(name, withJsonSchemas(h));
  b.addParameter('IdempotencyKey', {
    name: 'Idempotency-Key',
    in: 'header',
    required: true,
    schema: { type: 'string', maxLength: 255 },
    description:
      'Unique per write (e.g. a UUID). A retry with the same key and body replays the first response; with another body → 422 idempotency_key_reused. Missing → 400 idempotency_key_required.',
  });
  b.addParameter('AgentCode', {
    name: 'X-Agent-Code',
    in: 'header',
    required: false,
    schema: { type: 'string' },
    description: 'Act as this agent (with X-Agent-Key)',
  });
  b.addParameter('AgentKey', {
    name: 'X-Agent-Key',
    in: 'header',
    required: false,
    schema: { type: 'string' },
    description: "The agent's key; required with X-Agent-Code",
  });
}

/** Paths served outside the route table: the token endpoint, the rails' callbacks and the SMS delivery reports. */
function addTransportPaths(b: OpenApiBuilder): void {
  b.addPath(
    '/oauth/token',
    withJsonSchemas({
      post: {
        operationId: 'createToken',
        tags: ['Authentication'],
        summary: 'OAuth 2.0 client-credentials token',
        description:
          'JSON or form body; HTTP Basic client authentication or the legacy {key, passkey} also accepted. Limit: 10 requests per minute per IP address.',
        security: [],
        requestBody: {
          required: false,
          content: Object.fromEntries(
            ['application/json', 'application/x-www-form-urlencoded'].map((t) => [
              t,
              {
                schema: obj(
                  {
                    grant_type: { type: 'string', enum: ['client_credentials'] },
                    client_id: str(),
                    client_secret: str(),
                    scope: str(),
                    key: str('Alias of client_id'),
                    passkey: str('Alias of client_secret'),
                  },
                  [],
                ),
              },
            ]),
          ),
        },
        responses: {
          '200': {
            description: 'Token',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/TokenResponse' } } },
          },
          ...problemResponses([
            'invalid_request',
            'invalid_scope',
            'unsupported_grant_type',
            'invalid_client',
            'actor_disabled',
            'rate_limited',
            'internal_error',
            'service_unavailable',
          ]),
          '403': {
            description: '`tenant_inactive`: organisation suspended or in KYC review',
            content: { 'application/problem+json': { schema: problemRef } },
          },
        },
      },
    }),
  );

  // invalid_request: a path that is not valid percent-encoding (or a malformed request target or Host), refused
  // before any route reads it, as on every path.
  const rail = ['invalid_request', 'not_found', 'method_not_allowed', 'payload_too_large'] as ProblemCode[];
  addRailPaths(b, stkCallbackPaths, [...rail, 'internal_error']);
  addRailPaths(b, b2cResultPaths, rail);
  addRailPaths(b, smsReportPaths, rail);
}

/** Endpoints the rails and the SMS gateway call (STK, B2C Result and timeout, delivery reports) and their problems. */
function addRailPaths(b: OpenApiBuilder, paths: Record<string, PathItemWithZod>, problems: ProblemCode[]): void {
  for (const [p, { post }] of Object.entries(paths)) {
    b.addPath(
      p,
      withJsonSchemas({ post: { ...post!, responses: { ...post!.responses, ...problemResponses(problems) } } }),
    );
  }
}

/** One route of the table as an OpenAPI operation. */
function routeOperation(r: AnyRoute): OperationObject {
  return withJsonSchemas(routeOperationWithZod(r));
}

function routeOperationWithZod(r: AnyRoute) {
  const pathParams = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path' as const,
    required: true,
    schema: { type: 'string' as const },
  }));
  return {
    operationId: r.operationId,
    summary: r.summary,
    ...(r.description ? { description: r.description } : {}),
    tags: [r.tag],
    security: [{ bearer: r.scopes }, { oauth2: r.scopes }],
    'x-scopes': r.scopes,
    ...(r.serviceOnly ? { 'x-service-only': true } : {}),
    ...(r.simulatorOnly ? { 'x-simulator-only': true } : {}),
    parameters: [
      ...pathParams,
      ...(r.queryParams ?? []),
      { $ref: '#/components/parameters/AgentCode' },
      { $ref: '#/components/parameters/AgentKey' },
      ...(r.idempotent ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
    ],
    ...(r.requestBody
      ? {
          requestBody: {
            required: true,
            content: { [r.multipart ? 'multipart/form-data' : 'application/json']: { schema: r.requestBody } },
          },
        }
      : {}),
    responses: {
      [String(r.response.status)]: {
        description: r.response.description,
        headers: {
          ...rateHeaders,
          ...r.response.headers,
          ...(r.idempotent ? { 'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' } } : {}),
        },
        content: {
          ...Object.fromEntries(
            (r.response.mediaTypes ?? ['application/json']).map((t) => [t, { schema: r.response.schema }]),
          ),
          // The streamed CSV variant (`Accept: text/csv`), when the route has one.
          ...(r.csv ? { 'text/csv': { schema: { type: 'string', description: r.csv.description } } } : {}),
        },
      },
      // Another success status of the same body (e.g. 200 when nothing new was due beside 201).
      ...Object.fromEntries(
        (r.response.alsoStatuses ?? []).map((a) => [
          String(a.status),
          {
            description: a.description,
            headers: { ...rateHeaders, ...r.response.headers },
            content: { 'application/json': { schema: r.response.schema } },
          },
        ]),
      ),
      ...problemResponses([
        ...COMMON_ERRORS,
        ...r.errors,
        ...(r.idempotent
          ? (['idempotency_key_required', 'idempotency_key_invalid', 'idempotency_key_reused'] as ProblemCode[])
          : []),
        ...(r.requestBody
          ? (['invalid_request', 'validation_failed', 'payload_too_large', 'unsupported_media_type'] as ProblemCode[])
          : []),
        // A path or query value that is not valid percent-encoded UTF-8 is 400 invalid_request; text that cannot
        // be stored (NUL, a lone surrogate) is 422 validation_failed naming it, on any operation.
        'invalid_request',
        'validation_failed',
      ]),
    },
  };
}
