/**
 * `POST /api/v1/payment/stk/push` by hand: the work src/modules/payments/stk/initiate.ts and prompt.ts do, in the same
 * three steps, none holding a connection while the rail is called:
 *  1. one short transaction: the Idempotency-Key's lock and earlier attempt (a retry answers the first answer, kept
 *     on the request as `first_answer`), the account resolved as the caller may see it (policy or debit note; an
 *     agent only within reach), the organisation's M-Pesa channel and callback token, the intent (`sending`, with the
 *     key: the push's exactly-once record) and its audit row;
 *  2. the simulated rail called with no transaction open: the service's rail is the in-process M-Pesa simulator
 *     (jobs/rails/mpesa-simulator.ts MpesaSimulator.stkPush, no HTTP), so this does what it does, in the same tables:
 *     the Daraja request checked, the prompt stored in mpesa_sim_prompts (its CallBackURL sealed with the master
 *     key), and its resolve job queued on pg-boss (rails.mpesa-sim.resolve, after MPESA_SIM_DELAY_MS), which the
 *     service's job runner then works as for its own prompts;
 *  3. one short transaction: the acknowledgement recorded (`pending`) and the first answer fixed.
 *
 * Not done here (the bench turns them off for the service, PUSH_ENV in scenarios.ts): the prompt throttles
 * (STK_PHONE_LIMIT, STK_ACCOUNT_LIMIT, STK_PENDING_HOLD_SECONDS) and premium-finance repayments (purpose
 * ipf_repayment answers 501 here). A retry that finds its first attempt still `sending` answers 503 (the service waits
 * for it, then looks it up on the rail's statement).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import PgBoss from 'pg-boss';
import { QUEUES } from '../../../jobs/queues.ts';
import { sha256Hex } from '../../../src/lib/crypto.ts';
import { normalisePhone } from '../../../src/lib/identifiers.ts';
import { AppError, DomainRuleError, type FieldError, ValidationError } from '../../../src/lib/problem.ts';
import { encryptSecret, masterKey } from '../../../src/lib/secret-box.ts';
import { darajaPassword, darajaTimestamp } from '../../../src/ports/mobile-money.ts';
import { deriveCallbackToken } from '../../../src/modules/payments/callback-token.ts';
import { type HandWriter, idempotencyKeyOf, inTransaction, recordAudit, requestIdOf, requireActor } from './actor.ts';
import { type HandAnswer, type HandRequest, type HandRoute, toShillings, authenticate } from './common.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
/** The service's data directory (run.ts BENCH_DATA_DIR): its secrets.key is the master key when SECRETS_KEY is unset. */
const DATA_DIR = path.resolve(ROOT, process.env.BENCH_DATA_DIR || path.join('.data', 'bench'));
const SECRETS = { secretsKey: process.env.SECRETS_KEY, dataDir: DATA_DIR };
/** The Daraja passkey: the simulator checks the password against the same one (its in-process equivalent below). */
const PASSKEY = process.env.MPESA_PASSKEY || randomBytes(32).toString('hex');
const RAIL_TIMEOUT_MS = Number(process.env.MPESA_RAIL_TIMEOUT_MS || 15_000);
const SIM_DELAY_MS = Number(process.env.MPESA_SIM_DELAY_MS || 3_000);
const STK_MAX_AMOUNT = 250_000;
const CALLBACK_PATH = '/api/v1/payment/callback/mpesa';

/** Where the rail calls back: PUBLIC_BASE_URL, else the service's own origin as its demo credentials name it. */
function callbackOrigin(): string {
  if (process.env.PUBLIC_BASE_URL) return process.env.PUBLIC_BASE_URL;
  const creds = JSON.parse(readFileSync(path.join(DATA_DIR, 'demo-credentials.json'), 'utf8')) as { base_url: string };
  return new URL(creds.base_url).origin;
}

/** pg-boss as the service's web process has it (src/process/enqueue.ts startEnqueueOnly): sending only. */
let bossStarted: Promise<PgBoss> | undefined;
function boss(): Promise<PgBoss> {
  bossStarted ??= (async () => {
    const b = new PgBoss({
      connectionString: process.env.DATABASE_URL!,
      schema: 'pgboss',
      max: 2,
      supervise: false,
      schedule: false,
    });
    b.on('error', () => undefined);
    await b.start();
    return b;
  })();
  return bossStarted;
}

interface Push {
  phone: string;
  amount: number;
  account: string;
  purpose: string;
}

function validate(raw: Buffer): Push {
  let b: Record<string, unknown>;
  try {
    b = JSON.parse(raw.toString('utf8') || 'null') as Record<string, unknown>;
  } catch {
    throw new AppError('invalid_request', { detail: 'The body is not valid JSON' });
  }
  if (!b || typeof b !== 'object' || Array.isArray(b))
    throw new ValidationError([{ field: 'body', message: 'a JSON object' }]);
  const errors: FieldError[] = [];
  const phone = typeof b.phone === 'string' ? normalisePhone(b.phone) : null;
  if (!phone) errors.push({ field: 'phone', message: 'a Kenyan mobile number (07…, 01…, +254…)' });
  // Legacy clients send numbers as numeric strings ("100"): read as numbers, as the route's definition does.
  const amount = typeof b.amount === 'string' && /^\d+$/.test(b.amount.trim()) ? Number(b.amount) : b.amount;
  if (typeof amount !== 'number' || !Number.isInteger(amount) || amount < 1 || amount > STK_MAX_AMOUNT)
    errors.push({ field: 'amount', message: `whole shillings from 1 to ${STK_MAX_AMOUNT.toLocaleString('en-KE')}` });
  const account = typeof b.account === 'string' ? b.account.trim().toUpperCase() : '';
  if (!account)
    errors.push({ field: 'account', message: 'a policy number, debit note number or premium-finance loan reference' });
  const purpose = b.purpose ?? 'premium';
  if (purpose !== 'premium' && purpose !== 'ipf_repayment')
    errors.push({ field: 'purpose', message: 'premium or ipf_repayment' });
  if (errors.length) throw new ValidationError(errors);
  return { phone: phone!, amount: amount as number, account, purpose: purpose as string };
}

/** Daraja's 12-character AccountReference: the account without separators, its last 12 when longer. */
function accountReference(account: string): string {
  const compact = account.replace(/[^A-Za-z0-9]/g, '');
  return compact.length > 12 ? compact.slice(-12) : compact;
}

/** An agent's reach over policies (policy.visibility.ts): created or sold by them, or of a client they own. */
const POLICY_REACH = `(NOT $3::boolean OR p.created_by_user_id = $4 OR p.sales_person_id = $4
  OR EXISTS (SELECT 1 FROM clients c WHERE c.id = p.client_id AND (c.created_by_user_id = $4 OR c.sales_person_id = $4)))`;

interface PolicyRow {
  id: number;
  policy_no: string;
  client_id: number;
  status: string;
  payment_mode: string;
  debit_note_id: number | null;
}

/** The policy a premium pays (stk/account.ts resolveAccount): a debit note, DN-<policy_no>, or the policy number. */
async function resolveAccount(c: pg.PoolClient, w: HandWriter, account: string) {
  const reach = [w.tenantId, account, w.ownRecordsOnly, w.actor?.userId ?? 0];
  let pol: PolicyRow | undefined;
  if (account.startsWith('DN-')) {
    pol = (
      await c.query<PolicyRow>({
        name: 'hand_stk_dn',
        text: `SELECT p.id, p.policy_no, p.client_id, p.status, p.payment_mode, d.id AS debit_note_id
                 FROM debit_notes d JOIN policies p ON p.id = d.policy_id
                WHERE d.tenant_id = $1 AND d.number = $2 AND ${POLICY_REACH}
                ORDER BY d.id LIMIT 1`,
        values: reach,
      })
    ).rows[0];
    reach[1] = account.slice(3);
  }
  if (!pol) {
    pol = (
      await c.query<PolicyRow>({
        name: 'hand_stk_policy',
        text: `SELECT p.id, p.policy_no, p.client_id, p.status, p.payment_mode, NULL::int AS debit_note_id
                 FROM policies p WHERE p.tenant_id = $1 AND p.policy_no = $2 AND ${POLICY_REACH}
                ORDER BY p.id LIMIT 1`,
        values: reach,
      })
    ).rows[0];
  }
  if (!pol) {
    throw new ValidationError([
      {
        field: 'account',
        message: account.startsWith('DN-')
          ? 'no debit note with this number that you can see'
          : 'no policy or debit note with this number that you can see',
      },
    ]);
  }
  if (pol.payment_mode === 'ipf' && pol.status === 'pending_payment') {
    const loan = await c.query<{ loan_no: string }>(
      `SELECT loan_no FROM ipf_loans WHERE tenant_id = $1 AND policy_id = $2 AND status = 'awaiting_deposit' ORDER BY id LIMIT 1`,
      [w.tenantId, pol.id],
    );
    if (loan.rows[0])
      throw new DomainRuleError(
        `Policy ${pol.policy_no} is financed by loan ${loan.rows[0].loan_no}: pay its deposit with purpose ipf_repayment and account ${loan.rows[0].loan_no}`,
      );
  }
  if (pol.status !== 'pending_payment' && pol.status !== 'active' && pol.status !== 'lapsed') {
    const open =
      pol.status === 'not_taken_up'
        ? []
        : (
            await c.query(
              'SELECT id FROM debit_notes WHERE policy_id = $1 AND amount_minor > paid_minor + credited_minor LIMIT 1',
              [pol.id],
            )
          ).rows;
    if (!open.length)
      throw new DomainRuleError(
        `Policy ${pol.policy_no} is ${pol.status.replace(/_/g, ' ')} with nothing owed: it takes no premium`,
      );
  }
  return pol;
}

/** The organisation's callback token (callback-token.ts currentCallbackToken): the channel made on first use. */
async function callbackToken(c: pg.PoolClient, w: HandWriter): Promise<string> {
  await c.query({
    name: 'hand_stk_channel_ensure',
    text: 'INSERT INTO mpesa_channels (tenant_id, shortcode) VALUES ($1, $2) ON CONFLICT (tenant_id) DO NOTHING',
    values: [w.tenantId, w.paybill],
  });
  const ch = (
    await c.query<{ generation: number; callback_token_hash: string | null }>({
      name: 'hand_stk_channel',
      text: 'SELECT generation, callback_token_hash FROM mpesa_channels WHERE tenant_id = $1',
      values: [w.tenantId],
    })
  ).rows[0];
  const token = deriveCallbackToken(SECRETS, w.tenantId, ch.generation);
  if (ch.callback_token_hash !== sha256Hex(token)) {
    await c.query('UPDATE mpesa_channels SET callback_token_hash = $2 WHERE tenant_id = $1', [
      w.tenantId,
      sha256Hex(token),
    ]);
  }
  return token;
}

/** A payment_requests row as the service's ORM reads it: its fields in the model's order, by their names. */
const FIELDS: [string, string][] = [
  ['id', 'id'],
  ['tenantId', 'tenant_id'],
  ['merchantRequestId', 'merchant_request_id'],
  ['checkoutRequestId', 'checkout_request_id'],
  ['phone', 'phone'],
  ['amountMinor', 'amount_minor'],
  ['account', 'account'],
  ['accountReference', 'account_reference'],
  ['shortcode', 'shortcode'],
  ['purpose', 'purpose'],
  ['idempotencyKey', 'idempotency_key'],
  ['requestHash', 'request_hash'],
  ['sendingUntil', 'sending_until'],
  ['responseCode', 'response_code'],
  ['responseDesc', 'response_description'],
  ['customerMessage', 'customer_message'],
  ['policyId', 'policy_id'],
  ['debitNoteId', 'debit_note_id'],
  ['clientId', 'client_id'],
  ['loanId', 'loan_id'],
  ['status', 'status'],
  ['resultCode', 'result_code'],
  ['resultDesc', 'result_desc'],
  ['mpesaReceiptNo', 'mpesa_receipt_no'],
  ['receiptId', 'receipt_id'],
  ['requestedByUserId', 'requested_by_user_id'],
  ['apiClientId', 'api_client_id'],
  ['resolvedVia', 'resolved_via'],
  ['resolvedAt', 'resolved_at'],
  ['createdAt', 'created_at'],
  ['updatedAt', 'updated_at'],
];

/**
 * The first answer kept on the request (stk/answer.ts encode): the row without the two answers, bigints and instants
 * tagged, so the service replays a hand-written push byte for byte too.
 */
function snapshot(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, column] of FIELDS) {
    const v = row[column];
    if (field === 'amountMinor') out[field] = { $bigint: String(v) };
    else if (v instanceof Date) out[field] = { $date: v.toISOString() };
    else out[field] = v;
  }
  return out;
}

type Answer = Record<string, unknown> & { amountMinor: { $bigint: string } };

/** The REST body of a push's answer (rest-compat/mappers/payment.ts stkPushToRest), from the first answer. */
function body(a: Answer): HandAnswer {
  const minor = BigInt(a.amountMinor.$bigint);
  return {
    status: 202,
    body: {
      data: {
        id: a.id,
        merchant_request_id: a.merchantRequestId,
        checkout_request_id: a.checkoutRequestId,
        response_code: a.responseCode,
        response_description: a.responseDesc,
        customer_message: a.customerMessage,
        status: a.status,
        phone: a.phone,
        amount: toShillings(minor),
        amount_minor: Number(minor),
        account: a.account,
        purpose: a.purpose,
        links: {
          status: `/api/v1/payment/stk/${encodeURIComponent(String(a.checkoutRequestId ?? a.id))}`,
        },
      },
    },
  };
}

type Step =
  { prior: Answer } | { intent: { id: string; phone: string; amountMinor: bigint; accountReference: string } };

async function push({ pool, req, raw }: HandRequest): Promise<HandAnswer> {
  const w = await authenticate(pool, req.headers.authorization, 'bind');
  const key = idempotencyKeyOf(req.headers['idempotency-key']);
  const actor = requireActor(w, 'policies.create');
  const v = validate(raw);
  if (v.purpose === 'ipf_repayment')
    throw new AppError('internal_error', { status: 501, detail: 'ipf_repayment: not in the hand-written baseline' });
  const requestHash = sha256Hex(`${v.phone}|${v.amount}|${v.account}|${v.purpose}|${actor.userId}`);
  const requestId = requestIdOf(req);

  // 1. The key's earlier attempt, or the intent committed.
  let token = '';
  const step = await inTransaction(pool, async (c): Promise<Step> => {
    await c.query({
      name: 'hand_stk_key_lock',
      text: 'SELECT pg_advisory_xact_lock($1::int, hashtext($2))',
      values: [w.apiClientPk, `stk:${key}`],
    });
    const prior = (
      await c.query<{ request_hash: string | null; first_answer: Answer | null; id: string }>({
        name: 'hand_stk_prior',
        text: 'SELECT id, request_hash, first_answer FROM payment_requests WHERE api_client_id = $1 AND idempotency_key = $2',
        values: [w.apiClientPk, key],
      })
    ).rows[0];
    if (prior) {
      if (prior.request_hash !== requestHash)
        throw new AppError('idempotency_key_reused', {
          detail: 'Idempotency-Key was first used for a different payment request; use a new key for a new request',
        });
      if (prior.first_answer) return { prior: prior.first_answer };
      throw new AppError('service_unavailable', {
        detail: `The rail's answer to the first attempt with this Idempotency-Key is not known yet (it is looked up on the rail); nothing is sent again. Retry with the same key, or follow /api/v1/payment/stk/${prior.id}`,
        headers: { 'Retry-After': '5' },
      });
    }
    const pol = await resolveAccount(c, w, v.account);
    token = await callbackToken(c, w);
    const id = randomUUID();
    const amountMinor = BigInt(v.amount) * 100n;
    const ref = accountReference(v.account);
    await c.query({
      name: 'hand_stk_intent',
      text: `INSERT INTO payment_requests (id, tenant_id, status, phone, amount_minor, account, account_reference, shortcode,
                                           purpose, policy_id, debit_note_id, client_id, loan_id, requested_by_user_id,
                                           api_client_id, idempotency_key, request_hash, sending_until, updated_at)
             VALUES ($1, $2, 'sending', $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL, $12, $13, $14, $15, $16, now())`,
      values: [
        id,
        w.tenantId,
        v.phone,
        amountMinor.toString(),
        v.account,
        ref,
        w.paybill,
        v.purpose,
        pol.id,
        pol.debit_note_id,
        pol.client_id,
        actor.userId,
        w.apiClientPk,
        key,
        requestHash,
        new Date(Date.now() + RAIL_TIMEOUT_MS),
      ],
    });
    await recordAudit(c, w, requestId, {
      action: 'payment.requested',
      entityType: 'payment_request',
      entityId: id,
      changes: { account: v.account, amount: v.amount, purpose: v.purpose },
    });
    return { intent: { id, phone: v.phone, amountMinor, accountReference: ref } };
  });
  if ('prior' in step) return body(step.prior);
  const { intent } = step;

  // 2. The rail, with no transaction open: the simulator's stkPush, in process.
  const timestamp = darajaTimestamp();
  const callbackUrl = `${callbackOrigin().replace(/\/$/, '')}${CALLBACK_PATH}/${token}`;
  // The Daraja request the service sends, checked as the simulator checks it (checkRequest: the password is derived
  // from the same passkey on both sides, the phone and the 12-character account reference).
  const request = {
    Password: darajaPassword(w.paybill, PASSKEY, timestamp),
    PhoneNumber: intent.phone,
    AccountReference: intent.accountReference,
  };
  if (
    request.Password !== darajaPassword(w.paybill, PASSKEY, timestamp) ||
    !/^254[17]\d{8}$/.test(request.PhoneNumber) ||
    !request.AccountReference ||
    request.AccountReference.length > 12
  )
    throw new AppError('service_unavailable', { detail: 'Mobile-money rail refused the request' });
  const merchantRequestId = `${randomBytes(3).toString('hex')}-${randomBytes(4).toString('hex')}-1`;
  const checkoutRequestId = `ws_CO_${darajaTimestamp()}${randomBytes(6).toString('hex')}`;
  await pool.query({
    name: 'hand_stk_sim_prompt',
    text: `INSERT INTO mpesa_sim_prompts (checkout_request_id, merchant_request_id, shortcode, phone, amount,
                                          account_reference, callback_url_hash, callback_url_sealed)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    values: [
      checkoutRequestId,
      merchantRequestId,
      w.paybill,
      intent.phone,
      Number(intent.amountMinor / 100n),
      intent.accountReference,
      sha256Hex(callbackUrl),
      encryptSecret(masterKey(SECRETS), callbackUrl, `mpesa_sim_prompts:${checkoutRequestId}`),
    ],
  });
  await (
    await boss()
  ).send(
    QUEUES.mpesaSimResolve.name,
    { checkoutRequestId },
    SIM_DELAY_MS > 0 ? { startAfter: new Date(Date.now() + SIM_DELAY_MS) } : {},
  );
  const ack = {
    merchantRequestId,
    checkoutRequestId,
    responseCode: '0',
    responseDesc: 'Success. Request accepted for processing',
    customerMessage: 'Success. Request accepted for processing',
  };

  // 3. The acknowledgement recorded and the first answer fixed.
  const answer = await inTransaction(pool, async (c) => {
    const moved = await c.query({
      name: 'hand_stk_ack',
      text: `UPDATE payment_requests SET status = 'pending', merchant_request_id = $2, checkout_request_id = $3,
                    response_code = $4, response_description = $5, customer_message = $6, sending_until = NULL,
                    updated_at = now()
              WHERE id = $1 AND status = 'sending' RETURNING *`,
      values: [
        intent.id,
        ack.merchantRequestId,
        ack.checkoutRequestId,
        ack.responseCode,
        ack.responseDesc,
        ack.customerMessage,
      ],
    });
    let row = moved.rows[0] as Record<string, unknown> | undefined;
    if (!row) {
      row = (await c.query('SELECT * FROM payment_requests WHERE id = $1', [intent.id])).rows[0] as Record<
        string,
        unknown
      >;
      if (row.first_answer) return row.first_answer as Answer;
    }
    const snap = snapshot(row) as Answer;
    const fixed = await c.query<{ first_answer: Answer }>({
      name: 'hand_stk_fix',
      text: `UPDATE payment_requests SET first_answer = $2::jsonb WHERE id = $1 AND first_answer IS NULL
             RETURNING first_answer`,
      values: [intent.id, JSON.stringify(snap)],
    });
    return fixed.rows[0]?.first_answer ?? snap;
  });
  return body(answer);
}

export const routes: HandRoute[] = [{ method: 'POST', pattern: /^\/api\/v1\/payment\/stk\/push$/, handle: push }];
