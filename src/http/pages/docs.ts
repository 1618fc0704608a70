import { AppError } from '../../lib/problem.ts';
import { type Asset, docsAssets } from './docs/assets.ts';
import { DOCS_CSP, docsHtml } from './docs/html.ts';
import { type Page, requireGetOrHead, sendBody } from './page.ts';

/**
 * /docs: the API reference, the OpenAPI document (GET /api/v1/openapi.json) rendered by Scalar from its bundle in
 * node_modules, so the page works with no network. /docs/assets/<name>.<hash>.js are the scripts it loads; any other
 * path under /docs/ is a 404 problem document.
 */
export const docsPage: Page = {
  matches: (pathname) => pathname === '/docs' || pathname.startsWith('/docs/'),
  async handle(_app, req, res, { url }) {
    const { scalar, start } = await docsAssets();
    const { pathname } = url;
    const asset = [scalar, start].find((a) => a.path === pathname);
    if (!asset && pathname !== '/docs' && pathname !== '/docs/') {
      throw new AppError('not_found', { detail: `No such path: ${pathname}` });
    }
    requireGetOrHead(req);
    if (asset) return sendBody(req, res, asset.body, immutable(asset));
    const html = Buffer.from(docsHtml(scalar, start));
    sendBody(req, res, html, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'content-security-policy': DOCS_CSP,
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    });
  },
};

const immutable = (a: Asset): Record<string, string> => ({
  'content-type': a.contentType,
  'cache-control': 'public, max-age=31536000, immutable',
});
