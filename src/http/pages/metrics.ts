import { AppError } from '../../lib/problem.ts';
import type { Page } from './page.ts';

/** /metrics (issue 17). */
export const metricsPage: Page = {
  matches: (pathname) => pathname === '/metrics' || pathname.startsWith('/metrics/'),
  handle: () => Promise.reject(new AppError('not_found', { detail: 'Not built yet' })),
};
