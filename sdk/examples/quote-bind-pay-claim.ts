/**
 * Quote motor cover, bind it, collect the premium by STK push, wait until the policy is active (the moment the
 * service emits `policy.activated`) and register a claim on it (first notice of loss), all through the SDK, with no
 * casts: every answer is typed by the OpenAPI document. Against `npm start` (simulated M-Pesa, demo data):
 *
 *   npx tsx sdk/examples/quote-bind-pay-claim.ts [.data/demo-credentials.json]
 *
 * test/sdk-package.test.ts runs a copy of this file against the packed package (importing `@bima/gateway-sdk`).
 */
import { readFile } from 'node:fs/promises';
import { createBimaClient } from '../index.ts';

/** The base URL and the `staff` API client of the demo brokerage, read from the demo credentials file. */
function demoCredentials(json: unknown) {
  const field = (v: unknown, key: string): unknown =>
    typeof v === 'object' && v !== null ? Reflect.get(v, key) : undefined;
  const text = (v: unknown, what: string): string => {
    if (typeof v !== 'string') throw new Error(`the credentials file has no ${what}`);
    return v;
  };
  const staff = field(field(field(field(json, 'tenants'), 'brokerage'), 'api_clients'), 'staff');
  return {
    baseUrl: text(field(json, 'base_url'), 'base_url'),
    clientId: text(field(staff, 'client_id'), 'brokerage staff client_id'),
    clientSecret: text(field(staff, 'client_secret'), 'brokerage staff client_secret'),
  };
}

const file = process.argv[2] ?? '.data/demo-credentials.json';
const bima = createBimaClient(demoCredentials(JSON.parse(await readFile(file, 'utf8'))));

/** The data of a successful answer, or an Error carrying the problem document. */
function ok<T>(r: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (r.data === undefined) throw new Error(`${what}: ${r.response.status} ${JSON.stringify(r.error)}`);
  return r.data;
}

const year = new Date().getFullYear() - 3;
const quote = ok(
  await bima.POST('/motor/quote', {
    body: { class: 'Motor', coverage: 'Private', scope: 'Comprehensive', year, value: 1_500_000 },
  }),
  'quote',
);
const option = quote.options[0];
console.log(`quoted: ${option.insurer_name}, KES ${option.total}`);

const n = String(Date.now()).slice(-6); // a new client and vehicle on every run
const regno = `KDK ${n.slice(-3)}X`;
const bound = ok(
  await bima.POST('/motor/save', {
    // No Idempotency-Key here: the client adds one (and keeps it if it has to retry).
    body: {
      client: { name: `Wanjiru ${n} Kamau`, phone: `0712${n}`, idno: `3${n}1` },
      policy: {
        start_date: quote.quote.start_date, // the service's today
        insurer_id: option.insurer_id,
        class: 'Motor',
        coverage: 'Private',
        scope: 'Comprehensive',
        premium: option.total,
      },
      vehicles: [{ regno, chassis_no: `SDK-${n}`, make: 'Toyota', model: 'Fielder', yom: year, value: 1_500_000 }],
    },
  }),
  'bind',
);
console.log(`bound: ${bound.policy_no} (${bound.status}), debit note ${bound.debit_note.number}`);

const push = ok(
  await bima.POST('/payment/stk/push', {
    // 0708 374 149 is the simulator's customer who pays at once.
    body: { phone: '0708374149', amount: Math.ceil(bound.debit_note.amount_minor / 100), account: bound.policy_no },
  }),
  'STK push',
);
console.log(`STK push sent: ${push.data.checkout_request_id}`);

const deadline = Date.now() + 60_000;
for (;;) {
  const policy = ok(await bima.GET('/policies/{uuid}', { params: { path: { uuid: bound.uuid } } }), 'policy').data;
  if (policy.status === 'active') {
    console.log(`policy.activated: ${policy.policy_no} is active from ${policy.start_date} to ${policy.end_date}`);
    break;
  }
  if (Date.now() > deadline) throw new Error(`${policy.policy_no} still ${policy.status} after a minute`);
  await new Promise((resolve) => setTimeout(resolve, 1000));
}

// A claim on the active policy: a cause of the motor line (GET /claims/causes), the loss today on the bound vehicle.
const causes = ok(
  await bima.GET('/claims/causes', { params: { query: { product_line: 'motor' } } }),
  'claim causes',
).data;
const cause = causes.find((c) => c.code === 'accident') ?? causes[0];
const claim = ok(
  await bima.POST('/claims', {
    body: {
      policy_uuid: bound.uuid,
      registration: regno,
      cause: cause.code,
      loss_date: quote.quote.start_date,
      loss_place: 'Waiyaki Way, Nairobi',
      description: 'Rear-ended at the Westlands roundabout; rear bumper and boot lid damaged.',
    },
  }),
  'claim',
).data;
console.log(
  `claim.registered: ${claim.claim_no} (${claim.status}) on ${claim.policy.policy_no}, reserve KES ${claim.reserve}`,
);
