import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createClient } from '@hey-api/openapi-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTANT_RAIL, useKit } from './kit.ts';

// A client nobody here wrote (issue 27): @hey-api/openapi-ts generates a typed fetch client and zod schemas from the
// document the running server serves, with every response parsed by those schemas (the SDK's `validator.response`).
// A small driver that uses only that client (no casts, no `any`, no hand-written types or schema patches) is
// typechecked with tsc --strict and run against the kit's server: token, quote, bind, STK push, the policy active,
// a claim registered, then everything it made read back. Nothing of ours (sdk/, rest-compat/) is imported by the
// driver. docs/testing.md "A client nobody here wrote".
const t = useKit({ ...INSTANT_RAIL, tokenRateLimitPerMinute: 1_000 }, { jobs: true });
const o = t.useOrg({ fast: true, tokens: ['staff'] });

const root = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);

/**
 * The driver, as an integrator would write it against the generated client. Kept free of `as`, `any`, `!` and
 * `@ts-` (asserted below): every value it reads is typed by the generated code, and every answer it gets has been
 * parsed by the generated zod schema before the call returns (a schema the answer does not match throws).
 */
const DRIVER = `
import { randomUUID } from 'node:crypto';
import { client } from './client/client.gen.js';
import {
  createToken,
  getClaim,
  getClient,
  getClientBalance,
  getMe,
  getPolicy,
  listClaimCauses,
  listClaimDocuments,
  listClaims,
  listPolicies,
  listReceipts,
  motorQuote,
  registerClaim,
  saveMotorPolicy,
  stkPush,
  stkPushStatus,
  type BindRequest,
} from './client/index.js';
import { zDuplicateClientProblem, zPremiumMismatchProblem } from './client/zod.gen.js';

function env(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error('missing ' + name);
  return value;
}

/** Which step the driver is at, printed when a step throws (a refusal, or an answer its schema does not match). */
let step = 'start';

async function main(): Promise<void> {
  client.setConfig({ baseUrl: env('BIMA_BASE_URL') });

  step = 'token';
  const token = await createToken({
    body: { grant_type: 'client_credentials', client_id: env('BIMA_CLIENT_ID'), client_secret: env('BIMA_CLIENT_SECRET') },
    throwOnError: true,
  });
  const accessToken = token.data.access_token;
  client.setConfig({ auth: () => accessToken });

  step = 'quote';
  const year = new Date().getFullYear() - 3;
  const quote = await motorQuote({
    body: { class: 'Motor', coverage: 'Private', scope: 'Comprehensive', year, value: 1_500_000 },
    throwOnError: true,
  });
  const option = quote.data.options[0];
  if (option === undefined) throw new Error('the quote has no options');
  console.log('quoted: ' + option.insurer_name + ' KES ' + String(option.total));

  step = 'bind';
  const regno = 'KDG 424G';
  const bindPolicy: BindRequest['policy'] = {
    start_date: quote.data.quote.start_date,
    insurer_id: option.insurer_id,
    class: 'Motor',
    coverage: 'Private',
    scope: 'Comprehensive',
    premium: option.total,
  };
  const bound = await saveMotorPolicy({
    headers: { 'Idempotency-Key': randomUUID() },
    body: {
      client: { name: 'Wambui Generated Njoroge', phone: '0712 424 242', idno: '24242424' },
      policy: bindPolicy,
      vehicles: [{ regno, chassis_no: 'GEN-424', make: 'Toyota', model: 'Axio', yom: year, value: 1_500_000 }],
    },
    throwOnError: true,
  });
  console.log('bound: ' + bound.data.policy_no + ' (' + bound.data.status + ')');

  step = 'pay';
  const push = await stkPush({
    headers: { 'Idempotency-Key': randomUUID() },
    // 0708 374 149 is the simulator's customer who pays at once.
    body: { phone: '0708374149', amount: bound.data.debit_note.amount, account: bound.data.policy_no },
    throwOnError: true,
  });
  console.log('STK push: ' + push.data.data.status);

  step = 'policy active';
  const deadline = Date.now() + 60_000;
  let policy = (await getPolicy({ path: { uuid: bound.data.uuid }, throwOnError: true })).data.data;
  while (policy.status !== 'active') {
    if (Date.now() > deadline) throw new Error(policy.policy_no + ' still ' + policy.status + ' after a minute');
    await new Promise((resolve) => setTimeout(resolve, 250));
    policy = (await getPolicy({ path: { uuid: bound.data.uuid }, throwOnError: true })).data.data;
  }
  console.log('active: ' + policy.policy_no + ' from ' + policy.start_date + ' to ' + policy.end_date);

  step = 'claim causes';
  const causes = await listClaimCauses({ query: { product_line: policy.product_line }, throwOnError: true });
  const cause = causes.data.data.find((c) => c.code === 'accident');
  if (cause === undefined) throw new Error('no accident cause for ' + policy.product_line);

  step = 'claim';
  const claim = await registerClaim({
    headers: { 'Idempotency-Key': randomUUID() },
    body: {
      policy_uuid: policy.uuid,
      registration: regno,
      cause: cause.code,
      loss_date: policy.start_date,
      loss_time: '07:30',
      loss_place: 'Thika Road, Roysambu',
      description: 'Rear-ended in traffic',
      third_parties: [{ name: 'Jane Mwangi', phone: '0722 000 111', registration: 'KCB 123X', injured: false }],
    },
    throwOnError: true,
  });
  console.log('claim: ' + claim.data.data.claim_no + ' (' + claim.data.data.status + ')');

  // Refusals are typed too (the SDK does not validate error bodies: they are parsed here by the generated schemas
  // of the problems the document names for them).
  step = 'refusals';
  const mismatch = await saveMotorPolicy({
    headers: { 'Idempotency-Key': randomUUID() },
    body: {
      client: { name: 'Otieno Mismatch Ouma', phone: '0712 525 252', idno: '25252525' },
      policy: { ...bindPolicy, premium: option.total + 500 },
      vehicles: [{ regno: 'KDG 525G', yom: year, value: 1_500_000 }],
    },
  });
  const duplicate = await saveMotorPolicy({
    headers: { 'Idempotency-Key': randomUUID() },
    body: {
      // The phone of the client bound above, with another name and ID number.
      client: { name: 'Kipchoge Duplicate Rotich', phone: '0712 424 242', idno: '26262626' },
      policy: bindPolicy,
      vehicles: [{ regno: 'KDG 626G', yom: year, value: 1_500_000 }],
    },
  });
  const refusals = {
    premium_mismatch: [mismatch.response.status, zPremiumMismatchProblem.safeParse(mismatch.error).success],
    duplicate_client: [duplicate.response.status, zDuplicateClientProblem.safeParse(duplicate.error).success],
  };

  // Validation is on: an answer off its schema (here a policy with an unknown status and no other field, served by
  // a stand-in fetch) is refused by the generated client, never handed over.
  step = 'an answer off its schema';
  const offSchema = await getPolicy({
    path: { uuid: policy.uuid },
    fetch: async () => Response.json({ data: { uuid: policy.uuid, status: 'bogus' } }),
  }).then(
    () => 'accepted',
    (e: unknown) => (e instanceof Error ? e.name : 'refused with ' + JSON.stringify(e)),
  );

  step = 'done';
  console.log(
    'RESULT ' +
      JSON.stringify({
        policy_uuid: policy.uuid,
        policy_no: policy.policy_no,
        policy_status: policy.status,
        claim_uuid: claim.data.data.uuid,
        claim_no: claim.data.data.claim_no,
        claim_status: claim.data.data.status,
        off_schema_answer: offSchema,
        refusals,
      }),
  );

  // Everything the flow made, read back: each answer parsed by its schema. One line each, so that one read whose
  // answer the document describes wrongly does not hide the others.
  const reads: [string, () => Promise<unknown>][] = [
    ['getMe', () => getMe({ throwOnError: true })],
    ['stkPushStatus', () => stkPushStatus({ path: { checkout_request_id: push.data.data.id }, throwOnError: true })],
    ['getClient', () => getClient({ path: { client_no: bound.data.client_no }, throwOnError: true })],
    ['getClientBalance', () => getClientBalance({ path: { client_no: bound.data.client_no }, throwOnError: true })],
    ['listReceipts', () => listReceipts({ query: { policy_no: policy.policy_no }, throwOnError: true })],
    ['listPolicies', () => listPolicies({ query: { status: 'active' }, throwOnError: true })],
    ['getClaim', () => getClaim({ path: { uuid: claim.data.data.uuid }, throwOnError: true })],
    ['listClaims', () => listClaims({ query: { policy_uuid: policy.uuid }, throwOnError: true })],
    ['listClaimDocuments', () => listClaimDocuments({ path: { uuid: claim.data.data.uuid }, throwOnError: true })],
  ];
  for (const [name, read] of reads) {
    step = 'read ' + name;
    const outcome = await read().then(
      () => 'ok',
      (e: unknown) => (e instanceof Error ? e.message : JSON.stringify(e)),
    );
    console.log('READ ' + name + ' ' + JSON.stringify(outcome));
  }
}

main().catch((e: unknown) => {
  console.error('STEP ' + step + ' FAILED: ' + (e instanceof Error ? e.stack : JSON.stringify(e)));
  process.exitCode = 1;
});
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    lib: ['ES2023', 'DOM'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  },
  include: ['driver.ts', 'client/**/*.ts'],
};

interface Ran {
  stdout: string;
  stderr: string;
  failed?: true;
}
/** Runs node with `args` in the client's directory; a non-zero exit is returned (failed), not thrown. */
const node = (args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Ran> =>
  run(process.execPath, args, { cwd: dir, env, timeout: 90_000 }).catch((e: Ran) => ({
    stdout: e.stdout,
    stderr: e.stderr,
    failed: true,
  }));

let dir: string;
let typecheck: Promise<Ran>;

beforeAll(async () => {
  // Under the system's temp dir, with the project's node_modules linked in so that the generated code finds zod
  // (and tsc its types) as an integrator's project would.
  dir = await mkdtemp(path.join(tmpdir(), 'generated-client-'));
  await symlink(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  await createClient({
    input: `${t.base}/openapi.json`,
    output: { path: path.join(dir, 'client') },
    logs: { level: 'silent', file: false },
    plugins: [
      '@hey-api/typescript',
      'zod',
      '@hey-api/client-fetch',
      // Every successful answer is parsed by its operation's generated zod schema before the call returns; a
      // mismatch throws. Request validation stays off: this version validates `headers` after the fetch client
      // has turned them into a Headers object, so every required header (Idempotency-Key) reads as missing.
      { name: '@hey-api/sdk', validator: { response: 'zod' } },
    ],
  });
  await writeFile(path.join(dir, 'driver.ts'), DRIVER);
  await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  // tsc over the whole generated client takes half a minute: it runs while the driver does.
  typecheck = node([path.join(root, 'node_modules/typescript/bin/tsc'), '-p', dir]);
}, 90_000);

afterAll(async () => {
  await typecheck?.catch(() => undefined);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a client generated by @hey-api/openapi-ts from the served document, responses validated by zod', () => {
  it('was generated from GET /api/v1/openapi.json with a response validator on every operation the driver calls', async () => {
    const sdk = await readFile(path.join(dir, 'client', 'sdk.gen.ts'), 'utf8');
    const flow = ['createToken', 'motorQuote', 'saveMotorPolicy', 'stkPush', 'getPolicy', 'listClaimCauses'];
    const reads = ['getMe', 'stkPushStatus', 'getClient', 'getClientBalance', 'listReceipts', 'listPolicies'];
    for (const op of [...flow, 'registerClaim', ...reads, 'getClaim', 'listClaims', 'listClaimDocuments']) {
      expect(sdk, op).toMatch(new RegExp(`export const ${op} = [^]*?responseValidator: async \\(data\\) => await z`));
    }
    // The driver holds no cast, `any`, non-null assertion, directive or type argument of its own.
    expect(DRIVER).not.toMatch(/\bas\b|\bany\b|@ts-|!\.|!\)|!;|<[A-Z]\w*>/);
  });

  let driven: Ran;

  it('drives token → quote → bind → STK push → policy active → claim, every answer valid against its schema', async () => {
    driven = await node(['--import', 'tsx', 'driver.ts'], {
      ...process.env,
      BIMA_BASE_URL: t.base,
      BIMA_CLIENT_ID: o.clients.staff.clientId,
      BIMA_CLIENT_SECRET: o.clients.staff.secret,
    });
    const line = /^RESULT (.*)$/m.exec(driven.stdout);
    expect(line, driven.stdout + driven.stderr).not.toBeNull();
    const result = JSON.parse(line![1]);
    expect(result).toMatchObject({
      policy_status: 'active',
      claim_status: 'registered',
      off_schema_answer: 'ZodError',
      // [status, the body parses with the problem's generated schema]
      refusals: { premium_mismatch: [422, true], duplicate_client: [409, true] },
    });
    const policy = await t.db.tenant(o.id, (tx) =>
      tx.policy.findUniqueOrThrow({ where: { uuid: result.policy_uuid } }),
    );
    expect(policy).toMatchObject({ policyNo: result.policy_no, status: 'active' });
    const claim = await t.db.tenant(o.id, (tx) => tx.claim.findUniqueOrThrow({ where: { uuid: result.claim_uuid } }));
    expect(claim).toMatchObject({ claimNo: result.claim_no, policyId: policy.id });
  }, 100_000);

  it('reads back what the flow made (client, balance, receipts, payment request, claim, checklist), each answer valid', () => {
    const reads = Object.fromEntries(
      [...(driven?.stdout ?? '').matchAll(/^READ (\w+) (.*)$/gm)].map(([, name, outcome]) => [
        name,
        JSON.parse(outcome),
      ]),
    );
    const names = ['getMe', 'stkPushStatus', 'getClient', 'getClientBalance', 'listReceipts', 'listPolicies'];
    names.push('getClaim', 'listClaims', 'listClaimDocuments');
    expect(reads, driven.stderr).toEqual(Object.fromEntries(names.map((n) => [n, 'ok'])));
  });

  it('typechecks the driver and the whole generated client under tsc --strict (noUncheckedIndexedAccess)', async () => {
    const tsc = await typecheck;
    expect(tsc.failed ? tsc.stdout + tsc.stderr : '').toBe('');
  }, 100_000);
});
