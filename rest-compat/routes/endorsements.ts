import type { RestRoute } from '../route.ts';
import type { SchemaObject } from 'openapi3-ts/oas31';

export const endorsementRoutes: RestRoute[] = [];
export const endorsementSchemas: Record<string, SchemaObject> = {};
