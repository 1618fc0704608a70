import type { RestRoute } from '../route.ts';
import type { SchemaObject } from 'openapi3-ts/oas31';

export const certificateRoutes: RestRoute[] = [];
export const certificateSchemas: Record<string, SchemaObject> = {};
