import { AppError } from '../../lib/problem.ts';
import type { Page } from './page.ts';

/** /dashboard (issue 17). */
export const dashboardPage: Page = {
  matches: (pathname) => pathname === '/dashboard' || pathname.startsWith('/dashboard/'),
  handle: () => Promise.reject(new AppError('not_found', { detail: 'Not built yet' })),
};
