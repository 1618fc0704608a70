import { AppError } from '../../lib/problem.ts';
import type { Page } from './page.ts';

/** /docs (issue 17). */
export const docsPage: Page = {
  matches: (pathname) => pathname === '/docs' || pathname.startsWith('/docs/'),
  handle: () => Promise.reject(new AppError('not_found', { detail: 'Not built yet' })),
};
