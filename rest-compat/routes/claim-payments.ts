import type { AnyRoute } from '../route.ts';

export const claimPaymentsRoutes: AnyRoute[] = [];
