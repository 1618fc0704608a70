import { randomInt } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type PgBoss from 'pg-boss';
import { type Context, createContext } from '../context.ts';
import { openClockScope, withOrgClock } from '../lib/clock.ts';
import { todayNairobi } from '../lib/dates.ts';
import { claimService } from '../modules/claims/claim.service.ts';
import { clientService } from '../modules/clients/client.service.ts';
import type { CatalogueEventName } from '../modules/events/catalogue.ts';
import { motorQuoteService } from '../modules/motor/quote.service.ts';
import { tenantForCallbackToken } from '../modules/payments/callback-token.ts';
import { receiveCallback } from '../modules/payments/confirm.service.ts';
import { CALLBACK_PATH, paymentService } from '../modules/payments/payment.service.ts';
import { bindService } from '../modules/policies/bind.service.ts';
import { cancellationService } from '../modules/policies/cancellation.service.ts';
import { startEnqueueOnly } from '../process/enqueue.ts';
import { type Command, type CommandGroup, int, ORG, required, UsageError, type Values } from './command.ts';
import { CliError } from './database.ts';
import { type Author, operatorPrincipal, type Runtime } from './runtime.ts';

/**
 * `trigger <event> --org <code>` (like `stripe trigger`): drives, on a sandbox organisation, the real flow that emits
 * the event, through the services the API calls (quote, bind, STK push on the simulated rail and its callback, a claim
 * registered and moved, a cancellation …), as the operator's system actor; then waits until the event is recorded
 * and prints every event the flow emitted.
 *
 * The rail's prompts are resolved, and certificates issued or cancelled, by the running service's job workers (as
 * for any process that runs no jobs, src/process/enqueue.ts): this process only queues them, and takes the rail's
 * callback itself on a loopback port with the API's own callback handler (src/http/mpesa-callback.ts).
 */

/** The steps of the one motor flow, in order; an event runs the flow up to the step that emits it. */
type Step = 'bind' | 'phone' | 'pay' | 'certificate' | 'claim' | 'move' | 'cancel' | 'certificate_cancel' | 'reinstate';

interface Trigger {
  event: CatalogueEventName;
  /** What --help says the flow does. */
  flow: string;
  steps: Step[];
}

const PAID: Step[] = ['bind', 'pay'];
const CANCELLED: Step[] = [...PAID, 'certificate', 'cancel'];

export const TRIGGERS: Trigger[] = [
  {
    event: 'payment.received',
    flow: 'quote and bind a motor policy, STK push its premium on the simulated M-Pesa, which pays and calls back',
    steps: PAID,
  },
  { event: 'policy.activated', flow: 'the same: the paid first instalment activates the policy', steps: PAID },
  {
    event: 'certificate.issued',
    flow: "the same, then the registry simulator issues the vehicle's motor certificate",
    steps: [...PAID, 'certificate'],
  },
  {
    event: 'client.phone_changed',
    flow: "bind a motor policy for a new client, then change the client's phone",
    steps: ['bind', 'phone'],
  },
  {
    event: 'claim.registered',
    flow: 'a paid motor policy, then an accident claim registered on its vehicle',
    steps: [...PAID, 'claim'],
  },
  {
    event: 'claim.moved',
    flow: 'the same, then the claim acknowledged (registered → documents_pending)',
    steps: [...PAID, 'claim', 'move'],
  },
  {
    event: 'policy.cancelled',
    flow: 'a paid motor policy with its certificate, cancelled at the insured’s request (preview, confirm)',
    steps: CANCELLED,
  },
  {
    event: 'certificate.cancelled',
    flow: 'the same: the registry simulator cancels the certificate of the cancelled policy',
    steps: [...CANCELLED, 'certificate_cancel'],
  },
  {
    event: 'policy.reinstated',
    flow: 'the same cancellation, then the policy reinstated',
    steps: [...CANCELLED, 'reinstate'],
  },
];

/** Catalogue events with no flow here, and why (the group's help and the docs say so too). */
export const NOT_TRIGGERED =
  'Not triggered: events of the daily jobs and of time passing (policy.expired, policy.lapsed, policy.not_taken_up, ' +
  'policy.renewal_due, claim.sla_breached, prospect.follow_up_due, ipf.instalment_overdue, ipf.defaulted, ' +
  'sandbox.clock_ready: `sandbox advance` moves the clock for them), and flows longer than a trigger should run or ' +
  'that need a failure staged (policy.endorsed, policy.renewed, claim.approved, claim.settled, ipf.decided, ' +
  'ipf.funded, ipf.settled, certificate.failed, payment.unmatched).';

const DEFAULT_TIMEOUT_S = 60;
const POLL_MS = 250;
/** Paid by the simulator (any number other than its documented failures succeeds); the client's own phone. */
const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');
const letter = () => 'ABCDEFGHJKLMNPQRSTUVWXYZ'[randomInt(24)];

/** Fresh particulars every run: a client, a phone, an id number and a vehicle nobody else has. */
function freshParticulars() {
  return {
    name: `Trigger Test ${letter()}${letter().toLowerCase()}${letter().toLowerCase()}`,
    phone: `071${digits(7)}`,
    newPhone: `072${digits(7)}`,
    idNo: `3${digits(7)}`,
    regNo: `KD${letter()} ${100 + randomInt(900)}${letter()}`,
    chassisNo: `TRG${digits(6)}${letter()}${digits(7)}`,
  };
}

/** The queues and the callback receiver a flow needs here, stopped with it. */
interface Rails {
  boss: PgBoss;
  server: Server;
}

async function startRails(rt: Runtime, ctx: Context): Promise<Rails> {
  const app = rt.app;
  // One bind a run: the transport's per-client bind limit has nothing to count here (the runtime refuses binds else).
  app.limits = {
    bind: async () => ({
      allowed: true,
      limit: 1,
      remaining: 0,
      resetSeconds: 0,
      retryAfterSeconds: 0,
      policy: 'none',
    }),
  };
  const boss = await startEnqueueOnly(app, rt.databaseUrl);
  // The rail's callback for this flow's prompt, taken as the service's callback route takes one (its token names the
  // organisation; anything else is 404), then stored and confirmed with the rail by the payments module.
  const server = createServer((req, res) => {
    const answer = (status: number, body: unknown) => {
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const take = async () => {
      const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
      let token: string | null = null;
      try {
        if (req.method === 'POST' && pathname.startsWith(`${CALLBACK_PATH}/`))
          token = decodeURIComponent(pathname.slice(CALLBACK_PATH.length + 1));
      } catch {
        token = null;
      }
      const tenantId = token === null ? null : await tenantForCallbackToken(app, token);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const c of req as AsyncIterable<Buffer>) {
        size += c.length;
        if (size <= 64 * 1024) chunks.push(c);
      }
      if (tenantId == null || size > 64 * 1024) return answer(404, { error: 'not_found' });
      await receiveCallback(app, tenantId, Buffer.concat(chunks).toString('utf8'));
      answer(200, { ResultCode: 0, ResultDesc: 'Accepted' });
    };
    // On a clock scope of its own, as the service's requests are: the callback binds its organisation's clock.
    openClockScope(take).catch((err: unknown) => {
      ctx.log.error({ err }, 'trigger: callback not taken');
      answer(500, { error: 'internal' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  // The rail calls back here (unless PUBLIC_BASE_URL names the service, which then takes the callback itself).
  app.mobileMoney.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { boss, server };
}

async function stopRails(r: Rails): Promise<void> {
  r.server.closeAllConnections();
  await new Promise<void>((resolve) => r.server.close(() => resolve()));
  await r.boss.stop({ graceful: false, wait: true }).catch(() => undefined);
}

interface Emitted {
  id: string;
  name: string;
  createdAt: Date;
}

/** The events of this flow: those naming its policy or its (new) client, oldest first. */
function flowEvents(ctx: Context, policyUuid: string, clientNo: string): Promise<Emitted[]> {
  return ctx.tx((tx) =>
    tx.event.findMany({
      where: {
        OR: [
          { data: { path: ['policy_uuid'], equals: policyUuid } },
          { data: { path: ['client_no'], equals: clientNo } },
        ],
      },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: { id: true, name: true, createdAt: true },
    }),
  );
}

class Flow {
  policyUuid = '';
  policyNo = '';
  clientNo = '';
  claimUuid = '';
  readonly p = freshParticulars();

  constructor(
    private readonly ctx: Context,
    private readonly deadline: number,
    private readonly timeoutS: number,
  ) {}

  /** Waits for an event of this flow, or fails saying what it waited for and what runs it. */
  async waitFor(name: string, who: string): Promise<void> {
    for (;;) {
      const events = await flowEvents(this.ctx, this.policyUuid, this.clientNo);
      if (events.some((e) => e.name === name)) return;
      if (Date.now() > this.deadline) {
        throw new CliError(
          `timed out after ${this.timeoutS} s waiting for ${name} (policy ${this.policyNo}): ${who} must be ` +
            'running (`npm start`, or a PROCESS_ROLE=jobs process, on this database)',
        );
      }
      await sleep(POLL_MS);
    }
  }

  async run(step: Step): Promise<void> {
    const ctx = this.ctx;
    const p = this.p;
    switch (step) {
      case 'bind': {
        const q = await motorQuoteService.quote(ctx, {
          class: 'Motor',
          scope: 'Comprehensive',
          year: new Date().getUTCFullYear() - 3,
          value: 1_500_000,
        });
        const option = q.options[0];
        const bound = await bindService.bind(ctx, {
          client: { name: p.name, phone: p.phone, idNo: p.idNo },
          policy: {
            startDate: q.risk.startDate,
            insurerId: option.insurer.id,
            class: 'Motor',
            scope: 'Comprehensive',
            premium: Number(option.totalMinor) / 100,
            productVersion: option.productVersion,
          },
          vehicles: [
            {
              regNo: p.regNo,
              chassisNo: p.chassisNo,
              make: 'Toyota',
              model: 'Axio',
              yom: q.risk.year,
              value: 1_500_000,
            },
          ],
        });
        const policy = await ctx.tx((tx) =>
          tx.policy.findUniqueOrThrow({ where: { id: bound.policy.id }, select: { uuid: true, policyNo: true } }),
        );
        this.policyUuid = policy.uuid;
        this.policyNo = policy.policyNo;
        this.clientNo = bound.clientNo;
        return;
      }
      case 'phone':
        await clientService.update(ctx, this.clientNo, { phone: p.newPhone });
        return;
      case 'pay': {
        const due = await ctx.tx((tx) =>
          tx.debitNote.findFirstOrThrow({
            where: { policy: { uuid: this.policyUuid } },
            orderBy: { id: 'asc' },
            select: { amountMinor: true },
          }),
        );
        // M-Pesa moves whole shillings: the cents rounded up (the odd cents go to the client's balance).
        await paymentService.initiate(ctx, {
          phone: p.phone,
          amount: Math.ceil(Number(due.amountMinor) / 100),
          account: this.policyNo,
        });
        await this.waitFor('policy.activated', "the service's job workers (they resolve the simulated M-Pesa prompt)");
        return;
      }
      case 'certificate':
        return this.waitFor('certificate.issued', "the service's job workers (they call the certificate registry)");
      case 'claim': {
        const claim = await claimService.register(ctx, {
          policyId: this.policyUuid,
          registration: p.regNo,
          cause: 'accident',
          lossDate: todayNairobi(),
          lossPlace: 'Thika Road, Nairobi',
          description: 'Rear-ended in slow traffic (admin trigger)',
        });
        this.claimUuid = claim.uuid;
        return;
      }
      case 'move':
        await claimService.move(ctx, this.claimUuid, {
          to: 'documents_pending',
          reason: 'Acknowledged (admin trigger)',
        });
        return;
      case 'cancel': {
        const quoted = await cancellationService.preview(ctx, this.policyUuid, {
          reason: 'insured_request',
          requestedBy: 'insured',
        });
        await cancellationService.confirm(ctx, quoted.uuid, this.policyUuid);
        return;
      }
      case 'certificate_cancel':
        return this.waitFor('certificate.cancelled', "the service's job workers (they call the certificate registry)");
      case 'reinstate':
        await cancellationService.reinstate(ctx, this.policyUuid, 'Reinstated (admin trigger)');
        return;
    }
  }
}

/**
 * The organisation's first API client acting as a user who is not an agent (an organisation's `staff` key): what the
 * flow's rows name as their author, since a bind or a push records one (the audit log names the operator).
 */
async function authorOf(rt: Runtime, code: string, tenantId: number): Promise<Author> {
  const c = await rt.app.db.tenant(tenantId, (tx) =>
    tx.apiClient.findFirst({
      where: { revokedAt: null, actorUser: { is: { disabled: false, role: { not: 'agent' } } } },
      orderBy: { id: 'asc' },
      select: { id: true, clientId: true, name: true, rateLimitPerMinute: true, actorUserId: true },
    }),
  );
  if (!c?.actorUserId) {
    throw new CliError(
      `${code} has no API client acting as one of its users: create one first (api-clients create --actor <user>)`,
    );
  }
  const { actorUserId, ...apiClient } = c;
  return { apiClient, userId: actorUserId };
}

async function runTrigger(rt: Runtime, v: Values, t: Trigger) {
  const code = required(v, 'org');
  const timeoutS = int(v, 'timeout') ?? DEFAULT_TIMEOUT_S;
  if (timeoutS < 1 || timeoutS > 600) throw new UsageError('--timeout: whole seconds from 1 to 600');
  const org = await rt.app.db.system((tx) =>
    tx.tenant.findUnique({ where: { code }, select: { sandbox: true, status: true } }),
  );
  if (!org) throw new CliError(`no organisation with code ${JSON.stringify(code)}`);
  if (!org.sandbox) {
    throw new CliError(
      `${code} is not a sandbox organisation: trigger runs real flows (policies, payments) on sandbox organisations only`,
    );
  }
  const tenant = await rt.organisation(code);
  const tenantId = tenant.id;
  const ctx = await createContext({
    app: rt.app,
    transport: 'job',
    principal: operatorPrincipal(tenant, rt.operator, await authorOf(rt, code, tenantId)),
  });
  const rails = await startRails(rt, ctx);
  const flow = new Flow(ctx, Date.now() + timeoutS * 1000, timeoutS);
  try {
    // On the organisation's clock (a sandbox's own), as the API's requests run.
    await withOrgClock(tenantId, rt.app.db.clocks.offsetFor(tenantId), async () => {
      for (const step of t.steps) await flow.run(step);
      await flow.waitFor(t.event, "the service's job workers");
    });
  } finally {
    await stopRails(rails);
  }
  const events = (await flowEvents(ctx, flow.policyUuid, flow.clientNo)).map((e) => ({
    id: e.id,
    type: e.name,
    created_at: e.createdAt.toISOString(),
  }));
  return {
    json: { organisation: code, event: t.event, policy_no: flow.policyNo, client_no: flow.clientNo, events },
    text: events.map((e) => `${e.id}  ${e.type.padEnd(22)}  ${e.created_at}`).join('\n'),
  };
}

const commands: Command[] = TRIGGERS.map((t) => ({
  name: t.event,
  summary: t.flow,
  details:
    `Runs on a sandbox organisation only (exit 1 otherwise), with fresh client, phone, id and registration numbers; ` +
    `waits until ${t.event} is recorded (--timeout, default ${DEFAULT_TIMEOUT_S} s), then prints each event the ` +
    'flow emitted: id, type, created time. The simulated M-Pesa prompt and the registry are worked by the running ' +
    "service's job workers; the rail's callback comes back to this command.",
  options: {
    org: ORG,
    timeout: { type: 'string', arg: '<seconds>', description: `how long to wait (default ${DEFAULT_TIMEOUT_S})` },
  },
  ownProcess: "re-wires its runtime's rails and bind limit, and takes the rail's callback on a server of its own",
  run: (rt, v) => runTrigger(rt, v, t),
}));

export const trigger: CommandGroup = {
  name: 'trigger',
  summary: "drive a sandbox organisation's real flow until the event is recorded (like stripe trigger)",
  footer: NOT_TRIGGERED,
  unknownCommand: (name) => `unknown event ${name}: trigger supports ${TRIGGERS.map((t) => t.event).join(', ')}`,
  commands,
};
