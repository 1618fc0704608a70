import type { AnyRoute } from '../route.ts';

export const claimDocumentsRoutes: AnyRoute[] = [];
