import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServices, createContext } from '../../src/context.ts';
import { smsService } from '../../src/modules/sms/sms.service.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { expectProblem, INSTANT_RAIL, lastCode, type Org, requestCode, useKit, waitFor } from '../kit.ts';
import { ipfPolicy } from '../kit/ipf.ts';
import { command, decidedApplication, signingCode } from '../kit/ipf-application.ts';

/**
 * A one-time code is the customer's proof of presence (docs/sms.md "One-time codes"): a live client-area sign-in code
 * and a live premium-finance signing code are readable on the customer's handset (the simulator's inspection) and
 * nowhere the organisation can look: not in any column of any table, the log lines, GET /sms, GraphQL
 * SmsMessage.body, the ERP exports or the webhook deliveries. And staff cannot sign in, or sign a loan agreement, with
 * anything they can read.
 */

const lines: string[] = [];
const logs = new PassThrough();
logs.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')));

const t = useKit(INSTANT_RAIL, { jobs: true, logTo: logs });
const o = t.useOrg({ fast: true });
const receiver = new WebhookReceiver();

beforeAll(async () => {
  await receiver.start();
  const ep = await o.api.post('/webhooks/endpoints', {
    token: o.tokens.staff,
    idempotencyKey: randomUUID(),
    body: { url: receiver.url, events: ['*'] },
  });
  expect(ep.status, ep.text).toBe(201);
}, 60_000);
afterAll(() => receiver.stop());

/** The code as a whole word: six digits with no letter or digit either side (so never part of a hash or an id). */
const word = (code: string) => new RegExp(`(^|[^0-9A-Za-z])${code}([^0-9A-Za-z]|$)`);

const phoneOf = (org: Org, clientNo: string) =>
  t.db.tenant(org.id, (tx) => tx.client.findFirstOrThrow({ where: { clientNo } })).then((c) => c.phone);

/** Every outbox message to `phone` for `purpose`, once each recipient's delivery is settled (reports and events done). */
async function settled(phone: string, purpose: string) {
  return waitFor(
    `the ${purpose} SMS to ${phone} delivered`,
    () =>
      t.db.tenant(o.id, (tx) =>
        tx.smsMessage.findMany({ where: { purpose, recipients: { some: { phone } } }, include: { recipients: true } }),
      ),
    (ms) => ms.length > 0 && ms.every((m) => m.recipients.every((r) => r.status === 'delivered')),
  );
}

/**
 * Tables (schema.table) holding `code` as a whole word in any column cast to text. Columns of date and time types are
 * left out: their text is a fixed format of digits (fractional seconds) that could only coincide with a code.
 */
async function tablesHolding(code: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: t.databaseUrl });
  await c.connect();
  try {
    // The owner's connection (a superuser): row-level security does not apply, every organisation's rows are read.
    const { rows: cols } = await c.query<{ s: string; n: string; col: string }>(
      `SELECT c.table_schema AS s, c.table_name AS n, c.column_name AS col
         FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE t.table_type = 'BASE TABLE' AND c.table_schema IN ('public', 'pgboss')
          AND c.data_type NOT IN ('timestamp with time zone', 'timestamp without time zone', 'date', 'interval',
                                  'time with time zone', 'time without time zone')`,
    );
    const byTable = new Map<string, string[]>();
    for (const { s, n, col } of cols) byTable.set(`"${s}"."${n}"`, [...(byTable.get(`"${s}"."${n}"`) ?? []), col]);
    const holders: string[] = [];
    for (const [table, columns] of byTable) {
      const where = columns.map((col) => `"${col}"::text ~ $1`).join(' OR ');
      const { rows } = await c.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, [word(code).source]);
      if (rows[0].n) holders.push(table);
    }
    return holders;
  } finally {
    await c.end();
  }
}

/** Everything the organisation's API clients can read about its SMS and its data, as text. */
async function readableByTheOrganisation(): Promise<string[]> {
  const texts: string[] = [];
  const list = await o.as('readonly').get('/sms?limit=100');
  expect(list.status, list.text).toBe(200);
  texts.push(list.text);
  for (const m of list.body.data as { uuid: string }[]) texts.push((await o.as('staff').get(`/sms/${m.uuid}`)).text);
  const g = await o
    .as('staff')
    .gql('{ smsMessages(first: 100) { edges { node { uuid body recipients { phone } } } } }');
  expect(g.body.errors).toBeUndefined();
  texts.push(JSON.stringify(g.body));
  for (const path of ['/erp/clients', '/erp/policies', '/erp/claims', '/erp/receipts', '/erp/credit-notes']) {
    const r = await o.as('readonly').get(path);
    expect(r.status, `${path}: ${r.text}`).toBe(200);
    texts.push(r.text);
  }
  return texts;
}

describe('one-time codes are the customer’s alone', () => {
  it('a live sign-in code and a live signing code are on the handset and nowhere the organisation can read', async () => {
    const pol = await o.pendingPolicy();
    const phone = await phoneOf(o, pol.client_no);
    expect((await requestCode(o, { phone })).status).toBe(202);
    const signIn = (await lastCode(o, phone))!;
    const approved = await decidedApplication(o, await ipfPolicy(o));
    const { code: signing, phone: holder } = await signingCode(o, approved);
    expect(signIn).toMatch(/^\d{6}$/);
    expect(signing).toMatch(/^\d{6}$/);

    const [otp] = await settled(phone, 'otp');
    const [ipf] = await settled(holder, 'ipf_sign');
    // Each event of the organisation reached the webhook endpoint before the deliveries are read.
    const events = await t.db.tenant(o.id, (tx) => tx.event.count());
    await receiver.waitFor(() => receiver.received.length >= events);

    const readable = await readableByTheOrganisation();
    const hooks = receiver.received.map((r) => r.raw.toString('utf8'));
    const logText = lines.join('');
    expect(logText.length, 'the log lines were captured').toBeGreaterThan(0);
    for (const code of [signIn, signing]) {
      expect(await tablesHolding(code), `tables holding ${code}`).toEqual([]);
      expect(readable.filter((x) => word(code).test(x))).toEqual([]);
      expect(hooks.filter((x) => word(code).test(x))).toEqual([]);
      expect(word(code).test(logText), `a log line holds ${code}`).toBe(false);
    }
    // The outbox shows each code masked, in a text of the same length (the same segments are charged).
    expect(otp.body).toContain('******');
    expect(ipf.body).toContain('******');
    expect(otp.body).toMatch(/\*{6} is your .+ sign-in code/);
    // The sealed texts are kept no longer once handed over.
    const sealed = await t.db.tenant(o.id, (tx) => tx.smsMessage.count({ where: { bodySealed: { not: null } } }));
    expect(sealed).toBe(0);

    // The positive control: both were live codes, and the customer's own copy signs in and signs.
    const v = await o.as('staff').post('/client-area/verify-otp', { body: { phone, code: signIn } });
    expect(v.status, v.text).toBe(200);
    const s = await command(o, approved.uuid, 'sign', { code: signing });
    expect(s.status, s.text).toBe(200);
    expect(s.body.data.status).toBe('signed');
  });

  it('staff cannot sign in or sign the agreement with anything they can read', async () => {
    const pol = await o.pendingPolicy();
    const phone = await phoneOf(o, pol.client_no);
    expect((await requestCode(o, { phone })).status).toBe(202);
    const signIn = (await lastCode(o, phone))!;
    const approved = await decidedApplication(o, await ipfPolicy(o));
    const { code: signing, phone: holder } = await signingCode(o, approved);
    const [otp] = await settled(phone, 'otp');
    const [ipf] = await settled(holder, 'ipf_sign');

    // What staff read of the two messages, by REST and GraphQL, and what a code could be made of in it.
    const seen: string[] = [];
    for (const m of [otp, ipf]) {
      const r = await o.as('staff').get(`/sms/${m.uuid}`);
      expect(r.status, r.text).toBe(200);
      const g = await o.as('staff').gql(`query($u: String!) { smsMessage(uuid: $u) { body } }`, { u: m.uuid });
      seen.push(r.body.data.message, g.body.data.smsMessage.body);
    }
    const digitRuns = [...new Set(seen.flatMap((x) => x.match(/(?<!\d)\d{6}(?!\d)/g) ?? []))];
    expect(digitRuns).not.toContain(signIn);
    expect(digitRuns).not.toContain(signing);
    const masked = /\*{6}/.exec(seen[0])![0];
    expect(seen.every((x) => x.includes(masked))).toBe(true);

    // The masked code is refused as not a code; any six digits staff could find there are refused as wrong.
    expectProblem(
      await o.as('staff').post('/client-area/verify-otp', { body: { phone, code: masked } }),
      422,
      'validation_failed',
      'otp',
    );
    expectProblem(await command(o, approved.uuid, 'sign', { code: masked }), 422, 'validation_failed', 'otp');
    for (const guess of digitRuns.slice(0, 3)) {
      const v = await o.as('staff').post('/client-area/verify-otp', { body: { phone, code: guess } });
      expectProblem(v, 422, 'validation_failed', 'otp');
      expectProblem(await command(o, approved.uuid, 'sign', { code: guess }), 422, 'validation_failed', 'otp');
    }
    const history = await t.db.tenant(o.id, (tx) =>
      tx.ipfApplication.findFirstOrThrow({ where: { uuid: approved.uuid }, select: { status: true } }),
    );
    expect(history.status).toBe('approved');

    // The handset inspection is the admin's, and shows an organisation only what it sent.
    expectProblem(await o.as('staff').get(`/simulator/sms/handsets/${phone}/messages`), 403, 'insufficient_scope');
    expect((await o.as('admin').get(`/simulator/sms/handsets/${phone}/messages`)).body.data[0].message).toContain(
      signIn,
    );
  });

  it('the handset inspection exists only while the SMS rail is the simulator, and never under NODE_ENV=production', async () => {
    const pol = await o.pendingPolicy();
    const phone = await phoneOf(o, pol.client_no);
    const services = t.app.services;
    const asAdmin = (app: AppServices) =>
      createContext({ app, transport: 'test', credentials: { authorization: `Bearer ${o.tokens.admin}` } });
    // The running service's own parts: as it is, saying production, and with a real gateway (no inspection) in place.
    expect(await smsService.handsetMessages(await asAdmin(services), phone)).toEqual(expect.any(Array));
    const production = { ...services, config: { ...services.config, nodeEnv: 'production' } };
    await expect(smsService.handsetMessages(await asAdmin(production), phone)).rejects.toMatchObject({
      code: 'not_found',
    });
    const sim = services.sms!.gateway;
    const gateway = {
      send: (req: Parameters<typeof sim.send>[0]) => sim.send(req),
      query: (id: string) => sim.query(id),
    };
    const real = { ...services, sms: { ...services.sms!, gateway } };
    await expect(smsService.handsetMessages(await asAdmin(real), phone)).rejects.toMatchObject({ code: 'not_found' });
  });
});
