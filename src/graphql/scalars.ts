import { GraphQLError, Kind } from 'graphql';
import { DATE_TIME_MESSAGE, isYmd, parseDateTime, YMD_MESSAGE } from '../lib/dates.ts';
import { builder } from './builder.ts';

builder.scalarType('Date', {
  description: 'A calendar date, Y-m-d (Africa/Nairobi calendar).',
  serialize: (v) => (v instanceof Date ? v.toISOString().slice(0, 10) : String(v)),
  parseValue: (v) => {
    if (!isYmd(v)) throw new GraphQLError(`Date must be ${YMD_MESSAGE}`);
    return v;
  },
});

builder.scalarType('DateTime', {
  description: `An RFC 3339 timestamp with a UTC offset; as input, ${DATE_TIME_MESSAGE}.`,
  serialize: (v) => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString()),
  parseValue: (v) => {
    const d = parseDateTime(v);
    if (!d) throw new GraphQLError(`DateTime must be ${DATE_TIME_MESSAGE}`);
    return d;
  },
});

builder.scalarType('Cents', {
  description: 'Money in integer minor units (KES cents). Serialised as a JSON integer; always a safe integer.',
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
