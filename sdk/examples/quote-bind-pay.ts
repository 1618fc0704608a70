/**
 * Quote motor cover, bind it, collect the premium by STK push and wait until the policy is active (the moment the
 * service emits `policy.activated`), all through the SDK. Against `npm start` (simulated M-Pesa, demo data):
 *
 *   npx tsx sdk/examples/quote-bind-pay.ts [.data/demo-credentials.json]
 */
import { readFile } from 'node:fs/promises';
import { createBimaClient } from '../index.ts';

const file = process.argv[2] ?? '.data/demo-credentials.json';
const demo = JSON.parse(await readFile(file, 'utf8')) as {
  base_url: string;
  tenants: Record<string, { api_clients: Record<string, { client_id: string; client_secret: string }> }>;
};
const { client_id, client_secret } = demo.tenants.brokerage.api_clients.staff;
const bima = createBimaClient({ baseUrl: demo.base_url, clientId: client_id, clientSecret: client_secret });

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
      vehicles: [
        {
          regno: `KDK ${n.slice(-3)}X`,
          chassis_no: `SDK-${n}`,
          make: 'Toyota',
          model: 'Fielder',
          yom: year,
          value: 1_500_000,
        },
      ],
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
