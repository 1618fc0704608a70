import type { ServerResponse } from 'node:http';
import { B2C_RESULT_PATH, B2C_TIMEOUT_PATH } from '../../../modules/claims/claim-payment.service.ts';
import { CALLBACK_PATH } from '../../../modules/payments/payment.service.ts';
import { SMS_REPORT_PATH } from '../../../modules/sms/sms.service.ts';

/** The route template a router matched, per response (the REST facade sets it; see routeLabel). */
const templates = new WeakMap<ServerResponse, string>();

/** Called by a router once it knows which route answers: `/api/v1/policies/{uuid}`, never the raw path. */
export function setRouteTemplate(res: ServerResponse, template: string): void {
  templates.set(res, template);
}

/** Paths that are their own template. */
const FIXED = new Set([
  '/healthz',
  '/readyz',
  '/graphql',
  '/api/v1/openapi.json',
  '/api/v1/oauth/token',
  '/metrics',
  '/docs',
  '/dashboard',
  '/',
  '/favicon.ico',
  '/favicon.svg',
]);

/** Paths whose last segment is a callback token (a credential): the label names the token, never shows it. */
const TOKEN_PATHS = [CALLBACK_PATH, B2C_RESULT_PATH, B2C_TIMEOUT_PATH, SMS_REPORT_PATH];

/** Pages that serve files below their path (assets, sub-pages): one label each. */
const PAGE_PREFIXES = ['/docs', '/dashboard'];

/**
 * The `route` label of an answered request: the router's template, a fixed path, a callback path with its token
 * named, a page's subtree, or `other` (unknown paths must not grow the label set).
 */
export function routeLabel(res: ServerResponse, url: string | undefined): string {
  const template = templates.get(res);
  if (template) return template;
  const path = (url ?? '').split('?')[0];
  if (FIXED.has(path)) return path;
  for (const p of TOKEN_PATHS) {
    if (path.startsWith(`${p}/`) && !path.slice(p.length + 1).includes('/')) return `${p}/{callback_token}`;
  }
  for (const p of PAGE_PREFIXES) if (path.startsWith(`${p}/`)) return `${p}/{path}`;
  return 'other';
}
