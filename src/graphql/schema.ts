import { lexicographicSortSchema } from 'graphql';
import { builder } from './builder.ts';
import './scalars.ts';
import './common.ts';
import '../modules/identity/identity.type.ts';
import '../modules/reference/reference.type.ts';
import '../modules/audit/audit.type.ts';
import '../modules/api-clients/api-client.type.ts';
import '../modules/api-clients/api-client.mutations.ts';
import '../modules/clients/client.type.ts';
import '../modules/clients/client.mutations.ts';
import '../modules/motor/quote.type.ts';
import '../modules/motor/policy.type.ts';
import '../modules/motor/motor.mutations.ts';

export const schema = builder.toSchema({ sortSchema: true });
export const sortedSchema = lexicographicSortSchema(schema);
