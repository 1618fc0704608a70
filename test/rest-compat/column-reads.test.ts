import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphQLObjectType, isObjectType, parse } from 'graphql';
import { compileRoutes, plannedRowReads } from '../../rest-compat/executor.ts';
import {
  ClaimDocument,
  ClaimsDocument,
  ClientDocument,
  ClientsDocument,
  PoliciesDocument,
  PolicyDocument,
} from '../../rest-compat/generated/operations.ts';
import { ROUTES } from '../../rest-compat/routes/index.ts';
import { columnRead, derivedRead, relationRead } from '../../src/graphql/column-fields.ts';
import { schema } from '../../src/graphql/schema.ts';
import { loadConfig } from '../../src/lib/config.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { prepareDatabase } from '../../src/process/start.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { Api } from '../helpers/http.ts';

/**
 * The facade's compiled operations read exposed columns inline (rest-compat/executor.ts ColumnReads): production's
 * `inline` and the tests' `checked` (a resolver that refuses a row without its column, so every other test proves the
 * rows carry their columns) must answer the same bytes. Two services over one database holding the demo's week of
 * business (endorsed, financed, cancelled and claimed policies), every fixed read of the facade asked of both, as
 * staff and as an agent.
 */

let dir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let checked: TestApp | undefined;
let inline: TestApp | undefined;
let first: Awaited<ReturnType<typeof prepareDatabase>>;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'column-reads-'));
  database = await createTestDatabase();
  const config = {
    ...loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url, DATA_DIR: dir }),
    secretsKey: randomBytes(32).toString('base64'),
  };
  first = await prepareDatabase(config, createLogger('silent'), database.url);
  checked = await startTestApp({ facadeJitColumns: 'checked' }, { databaseUrl: database.url });
  inline = await startTestApp({ facadeJitColumns: 'inline' }, { databaseUrl: database.url });
}, 120_000);

afterAll(async () => {
  await checked?.stop();
  await inline?.stop();
  await database?.drop();
  await rm(dir, { recursive: true, force: true });
});

/** An answer without what differs by request (its id). */
const bytes = (text: string) => text.replace(/"request_id":"[^"]*"/g, '"request_id":""');

describe('exposed columns read inline', () => {
  it('answers every fixed read the same, inline or checked, for staff and for an agent', async () => {
    expect(checked!.app.services.config.facadeJitColumns).toBe('checked');
    expect(inline!.app.services.config.facadeJitColumns).toBe('inline');
    const creds = first!.brokerage as any;
    const a = new Api(checked!.origin);
    const b = new Api(inline!.origin);
    const staff = await a.token(creds.api_clients.staff.client_id, creds.api_clients.staff.client_secret);
    const agent = await a.token(creds.api_clients.agent.client_id, creds.api_clients.agent.client_secret);

    // The records' own paths, from the lists.
    const ids = async (list: string, key: string) =>
      ((await a.get(list, { token: staff })).body.data as Record<string, string>[]).map((r) => r[key]);
    // The ERP window ends at the moment asked, but never beyond the sync horizon as of the call (which in-flight
    // transactions anywhere on the server hold back): the first page's meta.until, which the horizon never falls
    // behind again, is one moment for both.
    const until = encodeURIComponent((await a.get('/erp/clients', { token: staff })).body.meta.until as string);
    const paths = [
      '/me',
      '/clients?limit=100',
      '/policies?limit=100',
      '/claims?limit=100',
      '/receipts?limit=100',
      '/ipf/loans',
      '/events?limit=100',
      `/erp/clients?per_page=1000&until=${until}`,
      `/erp/policies?per_page=1000&until=${until}`,
      `/erp/claims?per_page=1000&until=${until}`,
      `/erp/receipts?per_page=1000&until=${until}`,
      `/erp/credit-notes?per_page=1000&until=${until}`,
      '/insurers',
      ...(await ids('/clients?limit=100', 'client_no')).map((n) => `/clients/${n}`),
      ...(await ids('/policies?limit=100', 'uuid')).map((u) => `/policies/${u}`),
      ...(await ids('/claims?limit=100', 'uuid')).map((u) => `/claims/${u}`),
      ...(await ids('/ipf/loans', 'uuid')).map((u) => `/ipf/loans/${u}`),
    ];
    expect(paths.length).toBeGreaterThan(40);
    let records = 0;
    for (const token of [staff, agent])
      for (const p of paths) {
        const [x, y] = [await a.get(p, { token }), await b.get(p, { token })];
        expect(`${p}: ${y.status}`).toBe(`${p}: ${x.status}`);
        expect(bytes(y.text), p).toBe(bytes(x.text));
        if (x.status === 200) records++;
      }
    // The agent is refused some (the ERP exports) and sees fewer records; most answers are records.
    expect(records).toBeGreaterThanOrEqual(60);
  }, 120_000);

  it('FACADE_JIT_COLUMNS: inline by default, checked under test, anything else refused at start', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).facadeJitColumns).toBe('inline');
    expect(loadConfig({ NODE_ENV: 'test' }).facadeJitColumns).toBe('checked');
    expect(loadConfig({ NODE_ENV: 'test', FACADE_JIT_COLUMNS: 'inline' }).facadeJitColumns).toBe('inline');
    expect(() => loadConfig({ NODE_ENV: 'production', FACADE_JIT_COLUMNS: 'fast' })).toThrow(
      /FACADE_JIT_COLUMNS must be inline or checked/,
    );
  });

  it('compiles with the resolvers set aside and puts every one back', () => {
    const marked = () =>
      Object.values(schema.getTypeMap())
        .filter(isObjectType)
        .flatMap((t) =>
          Object.entries(t.getFields()).map(([k, f]) => [`${t.name}.${k}`, f.resolve, f.name === k] as const),
        )
        .filter(
          ([n, r]) =>
            columnRead(r) !== undefined ||
            derivedRead(r) !== undefined ||
            relationRead(...(n.split('.') as [string, string])),
        );
    const before = marked();
    expect(before.map(([n]) => n)).toEqual(
      expect.arrayContaining(['Policy.debitNotes', 'Endorsement.debitNote', 'Policy.total', 'DebitNote.dueOn']),
    );
    // The columns of a client, among others, are read so (its databaseId is its column id).
    expect(before.map(([n]) => n)).toEqual(
      expect.arrayContaining(['Client.clientNo', 'Client.databaseId', 'Policy.policyNo']),
    );
    for (const columns of ['inline', 'checked'] as const)
      for (const c of compileRoutes(schema, ROUTES, { columns })) void [c.jit, c.wholeTypes];
    expect(marked()).toEqual(before);
  });
});

describe('relations and derived fields read inline (plannedRowReads)', () => {
  const inline = (doc: Parameters<typeof plannedRowReads>[1]) => [...plannedRowReads(schema, doc).keys()];

  it("a policy's relations, on the page and the record, whose rows a root marked PLANNED_ROWS loaded", () => {
    for (const doc of [PoliciesDocument, PolicyDocument])
      expect(inline(doc)).toEqual(
        expect.arrayContaining(['Policy.debitNotes', 'Policy.endorsements', 'Endorsement.debitNote', 'Policy.claims']),
      );
  });

  it("a policy's fields computed from its rows' columns, read through their getters, on the page and the record", () => {
    for (const doc of [PoliciesDocument, PolicyDocument]) {
      const reads = plannedRowReads(schema, doc);
      for (const [field, getter] of [
        ['Policy.total', '$Policy$total'],
        ['Policy.startDate', '$Policy$startDate'],
        ['DebitNote.amount', '$DebitNote$amount'],
        ['DebitNote.dueOn', '$DebitNote$dueOn'],
      ])
        expect(reads.get(field), field).toBe(getter);
    }
    // Not below a relation asked with two sets of arguments (one of them is loaded apart, without the getters).
    const twice = parse(`{ policies { edges { node { endorsements { effectiveDate }
      all: endorsements(all: true) { effectiveDate } } } } }`);
    expect(inline(twice)).not.toContain('Endorsement.effectiveDate');
    const once = parse(`{ policies { edges { node { endorsements(all: true) { effectiveDate } } } } }`);
    expect(inline(once)).toContain('Endorsement.effectiveDate');
  });

  it("a claim's fields computed from its row on the claims page (the read model's rows or Prisma's, shaped alike)", () => {
    const reads = plannedRowReads(schema, ClaimsDocument);
    for (const field of [
      'lossDate',
      'reserve',
      'estimatedLoss',
      'outstanding',
      'policyNo',
      'clientName',
      'slaBreached',
    ])
      expect(reads.get(`Claim.${field}`), field).toBe(`$Claim$${field}`);
    // Not through a claim's policy, a field that checks reach and answers a row loaded apart.
    const through = parse(`{ claims { edges { node { lossDate policy { total { amount } } } } } }`);
    expect(inline(through)).toEqual(['Claim.lossDate']);
  });

  it("a record's directory references (branch, people, business source, prospect type, insurer), read from the copy the request holds in hand", () => {
    const refs = (doc: Parameters<typeof plannedRowReads>[1], type: string, fields: Record<string, string>) => {
      const reads = plannedRowReads(schema, doc);
      for (const [f, held] of Object.entries(fields)) {
        expect(reads.get(`${type}.${f}`), `${type}.${f}`).toBe(`$${type}$${f}`);
        const def = (schema.getType(type) as GraphQLObjectType).getFields()[f];
        expect(derivedRead(def.resolve)?.inHand?.name, `${type}.${f}`).toBe(held);
      }
    };
    const ofClient = ['branch', 'riskManager', 'salesPerson', 'businessSource', 'prospectType'];
    const fromDirectory = Object.fromEntries(ofClient.map((f) => [f, 'directory']));
    refs(ClientsDocument, 'Client', fromDirectory);
    refs(ClientDocument, 'Client', fromDirectory);
    refs(PoliciesDocument, 'Policy', { insurer: 'insurers', salesPerson: 'directory' });
    refs(PolicyDocument, 'Policy', { insurer: 'insurers', salesPerson: 'directory' });
    refs(ClaimsDocument, 'Claim', { insurer: 'insurers', assignee: 'directory' });
    // A staff member's own branch is not a planned row's (the person is the directory's row): its resolver answers.
    const nested = parse(`{ clients { edges { node { salesPerson { branch { name } } } } } }`);
    expect(plannedRowReads(schema, nested).has('StaffMember.branch')).toBe(false);
  });

  it('none on rows made otherwise: a claim (its root is not marked), its document checklist (built in code)', () => {
    expect(inline(ClaimDocument)).toEqual([]);
    // The same relation asked on a planned row and on one a computed field made: asked anywhere unplanned, never.
    const mixed = parse(`{ policies { edges { node { debitNotes { number } endorsements { debitNote { number } } } } }
      claim(uuid: "x") { policy { debitNotes { number } } } }`);
    expect(inline(mixed)).toContain('Policy.endorsements');
    expect(inline(mixed)).not.toContain('Policy.debitNotes'); // Claim.policy is a computed field (reach-checked)
  });

  it('none asked with two sets of arguments, and none from a document it cannot judge', () => {
    const twice = parse(
      `{ policies { edges { node { endorsements { uuid } all: endorsements(all: true) { uuid } } } } }`,
    );
    expect(inline(twice)).not.toContain('Policy.endorsements');
    const abstract = parse(`{ node(id: "x") { ... on Policy { debitNotes { number } } } }`);
    expect(inline(abstract)).toEqual([]);
  });
});
