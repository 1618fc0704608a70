import type { AnyRoute } from '../route.ts';

export const claimRoutes: AnyRoute[] = [];
