import type { Plugin } from 'graphql-yoga';
import { unreadableDeclaration } from '../http/body.ts';
import { allowHeader, corsPolicy } from '../http/cors.ts';

/**
 * What every GraphQL answer over HTTP carries: CORS from the CORS_ORIGINS allowlist (the rule REST follows, from
 * src/http/cors.ts; Yoga's own CORS is off because it echoes any Origin with credentials), and `no-store`, since
 * answers hold tenant data and some mutations show a secret once.
 */
/** What POST /graphql takes: JSON (or the GraphQL-over-HTTP response type some clients send as the request's type). */
const JSON_TYPE = /^\s*application\/(json|graphql-response\+json)\s*(;|$)/i;

export function responseHeadersPlugin(corsOrigins: readonly string[]): Plugin {
  const cors = corsPolicy(corsOrigins);
  return {
    // Yoga's endResponse is a bound callback, meant to be destructured.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    onRequest({ request, fetchAPI, endResponse }) {
      const type = request.headers.get('content-type');
      const unreadable =
        request.method !== 'POST'
          ? null
          : !JSON_TYPE.test(type ?? '')
            ? 'Send the operation as JSON with Content-Type: application/json'
            : unreadableDeclaration(request.headers.get('content-encoding'), type);
      if (unreadable) {
        // Yoga answers other media types with a bare 415 and no body; say what to send, in the GraphQL shape.
        const extensions = { code: 'unsupported_media_type', status: 415, title: 'Unsupported media type' };
        const body = JSON.stringify({ errors: [{ message: unreadable, extensions }] });
        endResponse(
          new fetchAPI.Response(body, {
            status: 415,
            headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
          }),
        );
        return;
      }
      if (request.method !== 'OPTIONS') return;
      const preflight = request.headers.get('access-control-request-method') ? { methods: ['GET', 'POST'] } : undefined;
      endResponse(
        new fetchAPI.Response(null, {
          status: 204,
          headers: {
            'content-length': '0',
            allow: allowHeader(['GET', 'POST']),
            ...cors.headers(request.headers.get('origin'), preflight),
          },
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
