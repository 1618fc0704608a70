import { getDatamodel } from '../generated/pothos-types.ts';

type Datamodel = ReturnType<typeof getDatamodel>['datamodel'];

let parsed: Datamodel | undefined;

/** The Prisma data model as the Pothos plugin's generator wrote it (models, fields, types, relations), parsed once. */
export function prismaDatamodel(): Datamodel {
  return (parsed ??= getDatamodel().datamodel);
}

/** The Prisma type of `model.field` (`DateTime`, `BigInt`, `String`, an enum's or a model's name), or undefined. */
export function prismaFieldType(model: string, field: string): string | undefined {
  const m = prismaDatamodel().models[model] as { fields: readonly { name: string; type: string }[] } | undefined;
  return m?.fields.find((f) => f.name === field)?.type;
}
