/**
 * Issue 27: GraphQL says as much as REST. Every type, field, argument, input field and enum value of the SDL carries a
 * description an integrator can act on; this walks the executable schema and lists whatever lacks one, so a new
 * field without a description fails here rather than reaching schema/schema.graphql bare.
 */
import { describe, expect, it } from 'vitest';
import {
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isSpecifiedScalarType,
  isIntrospectionType,
} from 'graphql';
import { sortedSchema } from '../src/graphql/schema.ts';

/** Every schema coordinate (`Type`, `Type.field`, `Type.field(arg:)`, `Enum.VALUE`) with no non-empty description. */
export function undescribed(schema: GraphQLSchema): string[] {
  const missing: string[] = [];
  const bare = (d: string | null | undefined) => !d || d.trim() === '';
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    if (bare(type.description)) missing.push(type.name);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (bare(field.description)) missing.push(`${type.name}.${field.name}`);
        for (const arg of field.args) {
          if (bare(arg.description)) missing.push(`${type.name}.${field.name}(${arg.name}:)`);
        }
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (bare(field.description)) missing.push(`${type.name}.${field.name}`);
      }
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) {
        if (bare(value.description)) missing.push(`${type.name}.${value.name}`);
      }
    }
  }
  return missing.sort();
}

describe('SDL descriptions', () => {
  it('describes every type, field, argument, input field and enum value', () => {
    expect(undescribed(sortedSchema)).toEqual([]);
  });
});
