import type { RestRoute } from '../route.ts';
import type { SchemaObject } from 'openapi3-ts/oas31';

export const cancellationRoutes: RestRoute[] = [];
export const cancellationSchemas: Record<string, SchemaObject> = {};
