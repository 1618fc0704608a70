/**
 * The Bima Gateway TypeScript SDK: a typed client generated from the OpenAPI document (generated/, by
 * `npm run generate`) and the helpers an integration needs. See the README section "TypeScript SDK".
 */
export { createBimaClient, type BimaClient, type BimaClientOptions, type BimaPaths } from './client.ts';
export { backoffMs, isSafeToRepeat, retryAfterMs, type RetryOptions } from './retry.ts';
export { BimaApiError, type TokenOptions } from './token.ts';
export { verifyWebhookSignature, type VerifyOptions } from './webhooks.ts';
export type { components, operations, paths } from './generated/schema.js';
