import type { AnyRoute } from '../route.ts';

export const prospectsRoutes: AnyRoute[] = [];
