import { GraphQLError, Kind, type ValueNode, valueFromASTUntyped } from 'graphql';
import { DATE_TIME_MESSAGE, isoInstant, isYmd, parseDateTime, utcYmd, YMD_MESSAGE } from '../lib/dates.ts';
import { MAX_MINOR, MAX_SHILLINGS } from '../lib/money.ts';
import { builder } from './builder.ts';

/**
 * A scalar's parseLiteral whose refusal graphql-js's validation locates. ValuesOfCorrectTypeRule reports a
 * GraphQLError thrown by parseLiteral as it is, with no node, so the literal check (literal-errors.ts), which finds
 * graphql-js's error by where it points, could not replace it: `amount: 1.5` written in the document was a 200 with
 * the scalar's own words. Any other error it wraps with the value's node, and the structured 422 replaces it.
 */
function locatedLiteral<T>(parse: (ast: ValueNode) => T): (ast: ValueNode) => T {
  return (ast) => {
    try {
      return parse(ast);
    } catch (e) {
      throw e instanceof GraphQLError ? new TypeError(e.message) : e;
    }
  };
}

builder.scalarType('Date', {
  description: 'A calendar date, Y-m-d (Africa/Nairobi calendar).',
  // What a refused value is told, in plain words (graphql/variable-errors.ts): the thrown message is GraphQL's own.
  extensions: { invalidValue: `must be ${YMD_MESSAGE}` },
  serialize: (v) => (v instanceof Date ? utcYmd(v) : String(v)),
  parseValue: parseDate,
  parseLiteral: locatedLiteral((ast) => parseDate(valueFromASTUntyped(ast))),
});

function parseDate(v: unknown): string {
  if (!isYmd(v)) throw new GraphQLError(`Date must be ${YMD_MESSAGE}`);
  return v;
}

builder.scalarType('DateTime', {
  description: `An RFC 3339 timestamp with a UTC offset; as input, ${DATE_TIME_MESSAGE}.`,
  extensions: { invalidValue: `must be ${DATE_TIME_MESSAGE}` },
  serialize: (v) => (v instanceof Date ? isoInstant(v) : new Date(String(v)).toISOString()),
  parseValue: parseDateTimeValue,
  parseLiteral: locatedLiteral((ast) => parseDateTimeValue(valueFromASTUntyped(ast))),
});

function parseDateTimeValue(v: unknown): Date {
  const d = parseDateTime(v);
  if (!d) throw new GraphQLError(`DateTime must be ${DATE_TIME_MESSAGE}`);
  return d;
}

/**
 * Money scalars (docs/api-conventions.md, Money): JSON integers of any size a JSON number holds exactly, so both
 * transports carry the same amounts. A request amount above the bound (src/lib/money.ts MAX_MINOR, MAX_SHILLINGS) is
 * refused, as a fraction is; the BIGINT columns hold far more, but nothing above the bound can be sent.
 */
const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

function moneyScalar(name: 'Cents' | 'Shillings', max: number, unit: string) {
  const refuse = () =>
    new GraphQLError(`whole ${unit}, at most ${max}`, {
      extensions: { code: 'validation_failed' },
    });
  const inRange = (n: bigint) => n >= -BigInt(max) && n <= BigInt(max);
  return {
    // Only arithmetic on stored amounts could pass the bound; an inexact figure is never shown. Compared without
    // making a BigInt: every amount of every record read passes through here.
    serialize: (v: unknown) => {
      if (typeof v === 'bigint' ? v <= MAX_EXACT && v >= -MAX_EXACT : Number.isSafeInteger(v)) return Number(v);
      throw new GraphQLError(`${name} value out of range`);
    },
    parseValue: (v: unknown) => {
      if (typeof v !== 'number' || !Number.isInteger(v) || !inRange(BigInt(v))) throw refuse();
      return v;
    },
    parseLiteral: (ast: ValueNode) => {
      if (ast.kind !== Kind.INT || !inRange(BigInt(ast.value))) throw refuse();
      return Number(ast.value);
    },
  };
}

const cents = moneyScalar('Cents', MAX_MINOR, 'cents');
builder.scalarType('Cents', {
  description: `Money in integer minor units (KES cents): a JSON integer, at most ${MAX_MINOR} either side of zero.`,
  extensions: { wholeNumberRange: [-MAX_MINOR, MAX_MINOR] },
  serialize: cents.serialize,
  parseValue: (v) => BigInt(cents.parseValue(v)),
  parseLiteral: locatedLiteral((ast) => BigInt(cents.parseLiteral(ast))),
});

const shillings = moneyScalar('Shillings', MAX_SHILLINGS, 'shillings');
builder.scalarType('Shillings', {
  description: `Money in whole KES shillings: a JSON integer, at most ${MAX_SHILLINGS} either side of zero (its cents within Cents).`,
  extensions: { wholeNumberRange: [-MAX_SHILLINGS, MAX_SHILLINGS] },
  serialize: shillings.serialize,
  parseValue: shillings.parseValue,
  parseLiteral: locatedLiteral(shillings.parseLiteral),
});

builder.scalarType('JSON', {
  description: 'Arbitrary JSON.',
  serialize: (v) => v,
  parseValue: (v) => v,
});
