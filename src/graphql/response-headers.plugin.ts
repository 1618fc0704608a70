import type { Plugin } from 'graphql-yoga';
import { corsPolicy } from '../http/cors.ts';

/**
 * What every GraphQL answer over HTTP carries: CORS from the CORS_ORIGINS allowlist (the rule REST follows, from
 * src/http/cors.ts; Yoga's own CORS is off because it echoes any Origin with credentials), and `no-store`, since
 * answers hold tenant data and some mutations show a secret once.
 */
export function responseHeadersPlugin(corsOrigins: readonly string[]): Plugin {
  const cors = corsPolicy(corsOrigins);
  return {
    onRequest({ request, fetchAPI, endResponse }) {
      if (request.method !== 'OPTIONS') return;
      const preflight = request.headers.get('access-control-request-method') ? { methods: ['GET', 'POST'] } : undefined;
      endResponse(
        new fetchAPI.Response(null, {
          status: 204,
          headers: { 'content-length': '0', allow: 'GET, POST, OPTIONS', ...cors.headers(request.headers.get('origin'), preflight) },
        }),
      );
    },
    onResponse({ request, response }) {
      response.headers.set('cache-control', 'no-store');
      if (request.method === 'OPTIONS') return;
      for (const [name, value] of Object.entries(cors.headers(request.headers.get('origin')))) {
        if (name === 'vary') response.headers.append(name, value);
        else response.headers.set(name, value);
      }
    },
  };
}
