import { GraphQLError, Kind } from 'graphql';
import { isYmd, YMD_MESSAGE } from '../lib/dates.ts';
import { builder } from './builder.ts';

builder.scalarType('Date', {
  description: 'A calendar date, Y-m-d (Africa/Nairobi calendar).',
  // What a refused value is told, in plain words (graphql/variable-errors.ts): the thrown message is GraphQL's own.
  extensions: { invalidValue: `must be ${YMD_MESSAGE}` },
  serialize: (v) => (v instanceof Date ? v.toISOString().slice(0, 10) : String(v)),
  parseValue: (v) => {
    if (!isYmd(v)) throw new GraphQLError(`Date must be ${YMD_MESSAGE}`);
    return v;
  },
});

builder.scalarType('DateTime', {
  description: 'An ISO 8601 timestamp with a UTC offset.',
  extensions: { invalidValue: 'must be an ISO 8601 date and time' },
  serialize: (v) => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString()),
  parseValue: (v) => {
    const d = new Date(String(v));
    if (typeof v !== 'string' || Number.isNaN(d.getTime()))
      throw new GraphQLError('DateTime must be an ISO 8601 string');
    return d;
  },
});

builder.scalarType('Cents', {
  description: 'Money in integer minor units (KES cents). Serialised as a JSON integer; always a safe integer.',
  extensions: { invalidValue: 'must be a whole number of cents' },
  serialize: (v) => {
    const n = typeof v === 'bigint' ? Number(v) : v;
    if (!Number.isSafeInteger(n)) throw new GraphQLError('Cents value out of range');
    return n;
  },
  parseValue: (v) => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new GraphQLError('Cents must be an integer');
    return BigInt(v);
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.INT) throw new GraphQLError('Cents must be an integer');
    return BigInt(ast.value);
  },
});

builder.scalarType('JSON', {
  description: 'Arbitrary JSON.',
  serialize: (v) => v,
  parseValue: (v) => v,
});
