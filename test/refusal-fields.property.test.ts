/**
 * A refusal names the field that is wrong, in the REST spelling, whatever the caller typed into the other fields
 * (issue 26, item 8): the facade once split graphql-js's message on "; ", and a description with a "; " in it moved
 * the refusal to `input` with a message quoting GraphQL's own names. Every case leaves exactly one field out or gives
 * exactly one field a value of the wrong kind, and fills the free-text fields with arbitrary text.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { isInputObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../src/graphql/schema.ts';
import { useKit, wsClient } from './kit.ts';

const t = useKit();
const org = t.useOrg({ fast: true, tokens: ['staff'] });
const staff = org.as('staff');

/** Text that once moved a refusal: separators and quotes of graphql-js's wording among ordinary characters. */
const tricky = fc
  .array(
    fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom(
        ';',
        '; ',
        '"',
        '\n',
        '{',
        '}',
        '\\',
        'Field "x" ',
        'Field "lossPlace" of required type "String!" was not provided.',
        ' at "input.name"',
        '; Expected type "Int".',
        'must not be null',
      ),
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join('').replace(/\0/g, ''));

/** Tricky text the definition takes for a text field of at most `max` characters (trimmed, not blank). */
const trickyWithin = (max: number) =>
  tricky.map((s) => (s.slice(0, max).trim() ? s.slice(0, max) : `x${s.slice(0, max - 1)}`));

/** A value that is not what a field of the given kind takes (and is never coerced into one). */
const wrongFor = {
  text: fc.oneof(fc.integer(), fc.boolean(), fc.constant({}), fc.array(fc.integer(), { maxLength: 2 })),
  int: fc.oneof(
    tricky.filter((s) => !/^\s*-?\d+(\.\d+)?\s*$/.test(s)),
    fc.constant(1.5),
    fc.boolean(),
    fc.constant({}),
  ),
  bool: fc.oneof(tricky, fc.integer(), fc.constant({})),
  float: fc.oneof(
    tricky.filter((s) => !/^\s*-?\d+(\.\d+)?\s*$/.test(s)),
    fc.boolean(),
  ),
};

interface Case {
  path: string;
  /** A body every field of which is acceptable to coercion. */
  valid: fc.Arbitrary<Record<string, unknown>>;
  required: string[];
  /** REST field → the kind of value it takes, and the message a wrong one gets. */
  typed: Record<string, { wrong: fc.Arbitrary<unknown>; message: string; code: string }>;
  /** GraphQL input types whose camelCase field names must never reach a REST message. */
  inputs: string[];
}

const WHOLE = { wrong: wrongFor.int, message: 'must be a whole number', code: 'not_a_whole_number' };
const TEXT = { wrong: wrongFor.text, message: 'must be a string', code: 'not_a_string' };
const BOOL = { wrong: wrongFor.bool, message: 'must be true or false', code: 'not_a_boolean' };

const CASES: Case[] = [
  {
    path: '/claims',
    valid: fc.record({
      policy_uuid: fc.uuid(),
      cause: trickyWithin(50),
      loss_date: fc.constant('2026-06-01'),
      loss_place: trickyWithin(300),
      description: trickyWithin(5000),
      reporter_name: trickyWithin(200),
      police_abstract_no: trickyWithin(50),
    }),
    required: ['policy_uuid', 'cause', 'loss_date', 'loss_place', 'description'],
    typed: {
      loss_place: TEXT,
      description: TEXT,
      estimated_loss: WHOLE,
      assignee_id: WHOLE,
      anti_theft_device: BOOL,
    },
    inputs: ['RegisterClaimInput', 'ClaimThirdPartyInput', 'ClaimWitnessInput'],
  },
  {
    path: '/prospects',
    // Its definition (ProspectInput) checks the values too: a name of 2 to 200 characters, a note not blank, a type.
    valid: fc.record({
      name: trickyWithin(200).filter((s) => s.trim().length >= 2),
      note: tricky.filter((s) => s.trim().length >= 1),
      type: fc.constantFrom('individual', 'business'),
    }),
    required: ['name'],
    typed: {
      name: TEXT,
      estimated_premium: WHOLE,
      force: BOOL,
      source: {
        wrong: tricky.filter(
          (s) =>
            ![
              'bancassurance',
              'cold_call',
              'event',
              'other',
              'referral',
              'social_media',
              'walk_in',
              'website',
            ].includes(s),
        ),
        message: 'must be one of: bancassurance, cold_call, event, other, referral, social_media, walk_in, website',
        code: 'not_one_of',
      },
    },
    inputs: ['CreateProspectInput'],
  },
  {
    path: '/clients',
    // Its definition (ClientInput) checks the values too: a name of 2 to 200 characters, a phone that reads as one,
    // an address of at most 500.
    valid: fc.record({
      name: trickyWithin(200).filter((s) => s.trim().length >= 2),
      phone: fc.constantFrom('0712345678', '+254 712 345 678', '254112345678'),
      physical_address: tricky.map((s) => s.slice(0, 500)),
      sector: tricky.filter((s) => s.trim().length <= 100),
    }),
    required: ['name', 'phone'],
    typed: { name: TEXT, branch_id: WHOLE, sales_person_id: WHOLE, force: BOOL },
    inputs: ['CreateClientInput'],
  },
  {
    path: '/motor/quote',
    // class and scope are words of the domain's vocabulary (their definitions refuse other text); coverage is free.
    valid: fc.record({
      class: fc.constantFrom('Motor', ' tuk-tuk ', 'MOTORCYCLE', 'boda boda'),
      scope: fc.constantFrom('Comprehensive', 'TPO', 'third party only'),
      year: fc.integer({ min: 1990, max: 2026 }),
      coverage: tricky,
    }),
    required: ['class', 'scope', 'year'],
    typed: {
      year: WHOLE,
      pll: WHOLE,
      tonnage: { wrong: wrongFor.float, message: 'must be a number', code: 'not_a_number' },
      scope: TEXT,
    },
    inputs: ['MotorQuoteInput'],
  },
];

/** What no REST message may say: GraphQL's type names and the camelCase names of the operation's inputs. */
function forbiddenWords(inputs: string[]): RegExp {
  const words = new Set([
    'String!',
    'Int',
    'Float',
    'Boolean',
    'ID!',
    'ProspectSource',
    'ProspectInterest',
    'ClaimStatus',
    'Variable',
    '$input',
  ]);
  for (const name of inputs) {
    const type = schema.getType(name);
    if (!isInputObjectType(type)) throw new Error(`${name} is not an input type`);
    words.add(name);
    for (const f of Object.keys(type.getFields())) if (/[A-Z]/.test(f)) words.add(f);
  }
  return new RegExp([...words].map((w) => `\\b${w.replace(/[$!]/g, '\\$&')}`).join('|'));
}

const post = (path: string, body: unknown) => staff.post(path, { body, idempotencyKey: randomUUID() });

async function expectRefusal(path: string, body: unknown, field: string, code: string, message: string, words: RegExp) {
  const r = await post(path, body);
  expect(r.status, r.text).toBe(422);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body.code, r.text).toBe('validation_failed');
  expect(r.body.errors, r.text).toEqual([{ field, code, message }]);
  expect(r.body.detail, r.text).toBe(`${field}: ${message}`);
  expect(JSON.stringify([r.body.detail, r.body.errors]), r.text).not.toMatch(words);
}

describe.each(CASES)('POST $path: the refused field does not depend on the free text', (c) => {
  const words = forbiddenWords(c.inputs);

  it('a required field left out is named, and only it', async () => {
    await fc.assert(
      fc.asyncProperty(c.valid, fc.constantFrom(...c.required), async (body, missing) => {
        const { [missing]: _left, ...rest } = body;
        await expectRefusal(c.path, rest, missing, 'required', 'required', words);
      }),
      { numRuns: 25 },
    );
  });

  it('a field of the wrong kind is named, and only it', async () => {
    const typed = fc
      .constantFrom(...Object.keys(c.typed))
      .chain((field) => c.typed[field].wrong.map((value) => ({ field, value })));
    await fc.assert(
      fc.asyncProperty(c.valid, typed, async (body, { field, value }) => {
        const { code, message } = c.typed[field];
        await expectRefusal(c.path, { ...body, [field]: value }, field, code, message, words);
      }),
      { numRuns: 25 },
    );
  });
});

describe('the examples of the issue', () => {
  const body = {
    policy_uuid: randomUUID(),
    cause: 'accident',
    loss_date: '2026-06-01',
    description: 'Hit a pothole; front tyre and rim damaged',
  };
  it('POST /claims without loss_place names loss_place, "; " in the description or not', async () => {
    const words = forbiddenWords(['RegisterClaimInput']);
    await expectRefusal('/claims', body, 'loss_place', 'required', 'required', words);
    await expectRefusal(
      '/claims',
      { ...body, description: 'Hit a pothole' },
      'loss_place',
      'required',
      'required',
      words,
    );
  });

  it('a list item is named by its position, in the REST spelling', async () => {
    const r = await post('/claims', {
      ...body,
      loss_place: 'Thika Road',
      third_parties: [{ name: 'A; "b"', injured: 'no' }],
    });
    expect(r.body.errors, r.text).toEqual([
      { field: 'third_parties.0.injured', code: 'not_a_boolean', message: 'must be true or false' },
    ]);
  });

  it('a legacy spelling the route renames is named as the route names it', async () => {
    const r = await post('/motor/quote', { class: 'Motor', scope: 'TPO', year: 2020, insurer_id: ['x; y'] });
    expect(r.body.errors, r.text).toEqual([
      { field: 'insurer_id.0', code: 'not_a_whole_number', message: 'must be a whole number' },
    ]);
  });

  it('query parameters are named as sent: a list item by its position, an enum with its allowed values', async () => {
    const words = forbiddenWords(['RegisterClaimInput']);
    const status = await staff.get('/claims?status=registered,flying&insurer_id=abc');
    expect(status.status, status.text).toBe(422);
    expect(status.body.errors, status.text).toEqual([
      {
        field: 'status.1',
        code: 'not_one_of',
        message: expect.stringMatching(/^must be one of: (\w+, )+\w+$/),
      },
      { field: 'insurer_id', code: 'not_a_whole_number', message: 'must be a whole number' },
    ]);
    expect(status.body.errors[0].message).toContain('documents_pending');
    expect(JSON.stringify([status.body.detail, status.body.errors])).not.toMatch(words);
  });

  it('over WebSocket too: a subscription with a wrong variable is refused with the same structured error', async () => {
    const client = wsClient(t.origin, staff.token);
    try {
      // graphql-ws sends a result refused before subscribing as a next message with errors (then complete).
      const errors = await new Promise<unknown[]>((resolve, reject) => {
        client.subscribe(
          { query: 'subscription($c: String) { claimMoved(claimUuid: $c) { __typename } }', variables: { c: 5 } },
          {
            next: (r) => (r.errors ? resolve([...r.errors]) : reject(new Error('an event arrived'))),
            error: (e) => resolve(Array.isArray(e) ? e : [e]),
            complete: () => reject(new Error('completed without a refusal')),
          },
        );
      });
      expect(errors).toEqual([
        expect.objectContaining({
          extensions: expect.objectContaining({
            code: 'validation_failed',
            errors: [{ field: 'c', code: 'not_a_string', message: 'must be a string' }],
          }),
        }),
      ]);
    } finally {
      await client.dispose();
    }
  });

  it('GraphQL says the same as data: validation_failed with the field path and code in extensions', async () => {
    const r = await staff.gql('mutation($input: RegisterClaimInput!) { registerClaim(input: $input) { __typename } }', {
      input: {
        policyId: randomUUID(),
        cause: 'accident',
        lossDate: '2026-06-01',
        description: 'Hit a pothole; front tyre and rim damaged',
        estimatedLoss: 'lots',
      },
    });
    expect(r.status).toBe(422);
    expect(r.body.errors?.[0].extensions.code).toBe('validation_failed');
    const errors = [...(r.body.errors?.[0].extensions.errors ?? [])].sort((a, b) => a.field.localeCompare(b.field));
    expect(errors).toEqual([
      { field: 'input.estimatedLoss', code: 'not_a_whole_number', message: 'must be a whole number' },
      { field: 'input.lossPlace', code: 'required', message: 'required' },
    ]);
  });
});
