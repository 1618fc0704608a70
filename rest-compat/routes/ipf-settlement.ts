import type { AnyRoute } from '../route.ts';

/** Premium finance under /ipf (README "Premium finance"). */
export const ipfSettlementRoutes: AnyRoute[] = [];
