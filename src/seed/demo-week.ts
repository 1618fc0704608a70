import type { TenantInfo } from '../auth/principal.ts';
import type { AppServices, Context } from '../context.ts';
import type { Database } from '../db/client.ts';
import { serviceNow, withOrgClock } from '../lib/clock.ts';
import type { Config } from '../lib/config.ts';
import { addDays, todayNairobi } from '../lib/dates.ts';
import type { Logger } from '../lib/logger.ts';
import { claimDocumentService } from '../modules/claims/claim-document.service.ts';
import { claimService } from '../modules/claims/claim.service.ts';
import { motorQuoteService } from '../modules/motor/quote.service.ts';
import { bindService } from '../modules/policies/bind.service.ts';
import { cancellationService } from '../modules/policies/cancellation.service.ts';
import { endorsementService } from '../modules/policies/endorsement.service.ts';
import {
  TODAY_SPAN_MINUTES,
  WEEK,
  type WeekActor,
  type WeekClaim,
  type WeekPolicy,
  type WeekWhen,
} from './demo-week-data.ts';
import { payAtOnce, type WeekJobs, type WeekPrincipal, weekContext, weekServices } from './demo-week-services.ts';
import { loanSteps } from './demo-week-loan.ts';

/**
 * The brokerage's recent week (docs/operations.md "Demo data"): on a first start the demo brokerage gets a week of
 * business dated over the last seven Nairobi days, today included (demo-week-data.ts), so its dashboard shows
 * something. Every record is made by the services the API calls, as the demo's staff user or one of its two agents:
 * quotes and binds, STK pushes settled by the payments path (receipts allocated to debit notes, policies activated),
 * an endorsement, a cancellation, claims moved through their states and a premium-finance loan from application to
 * an instalment (demo-week-loan.ts), with their events and audit rows. Each step runs on the brokerage's clock set
 * back to its day (lib/clock.ts withOrgClock), so business dates (cover start, payment time, loss date, signing and
 * funding) fall on that day; rows' own created_at stamps are the seed's, but for the STK prompts', dated with their
 * receipts at the end (the dashboard counts a day's prompts by them).
 *
 * Once per database: the week is added only while the brokerage has no policy and no marker (the `demo_week`
 * counter written at its end), under a lock of its own so replicas started together add it once.
 */
export const BROKERAGE_CODE = 'savannah-brokers';
const MARKER = 'demo_week';
const WEEK_LOCK = 'bima-gateway:demo-week';

export async function seedDemoWeek(db: Database, config: Config, log: Logger): Promise<boolean> {
  // A session lock: on a connection of its own, straight to the primary (behind a pooler, too).
  const lock = await db.sessionClient();
  try {
    await lock.query('SELECT pg_advisory_lock(hashtext($1))', [WEEK_LOCK]);
    const tenant = await db.system(async (tx) => {
      const t = await tx.tenant.findUnique({ where: { code: BROKERAGE_CODE } });
      if (!t) return null;
      const [policies, marker] = await Promise.all([
        tx.policy.count({ where: { tenantId: t.id } }),
        tx.tenantCounter.findUnique({ where: { tenantId_name: { tenantId: t.id, name: MARKER } } }),
      ]);
      return policies === 0 && !marker ? t : null;
    });
    if (!tenant) return false;
    const started = performance.now();
    const services = await weekServices(db, config, log);
    const app = services.app;
    try {
      const info: TenantInfo = {
        id: tenant.id,
        code: tenant.code,
        name: tenant.name,
        type: tenant.type,
        paybill: tenant.paybill,
        status: tenant.status,
      };
      await new Week(app, services.jobs, info, await actors(app, info)).run();
    } finally {
      await services.close();
    }
    await db.system(async (tx) => {
      // A prompt's created_at is the database's own time (the prompt throttle counts real minutes), so the week's
      // prompts would all be "today": dated to their receipts' instants, the dashboard's prompts of a day agree with
      // its receipts.
      await tx.$executeRaw`UPDATE payment_requests pr
        SET created_at = r.paid_at - interval '30 seconds', resolved_at = r.paid_at
        FROM receipts r WHERE r.payment_request_id = pr.id AND pr.tenant_id = ${tenant.id}`;
      await tx.tenantCounter.create({ data: { tenantId: tenant.id, name: MARKER, value: 1n } });
    });
    log.info({ ms: Math.round(performance.now() - started), policies: WEEK.length }, 'demo week added');
    return true;
  } finally {
    await lock.query('SELECT pg_advisory_unlock(hashtext($1))', [WEEK_LOCK]).catch(() => undefined);
    await lock.end().catch(() => undefined);
  }
}

/** The staff user (Wanjiku, `staff` client), Faith Mutua (the `agent` client's actor), Hassan (agent headers). */
async function actors(app: AppServices, tenant: TenantInfo): Promise<Record<WeekActor, Context>> {
  const { clients, users } = await app.db.system(async (tx) => ({
    clients: await tx.apiClient.findMany({ where: { tenantId: tenant.id, revokedAt: null } }),
    users: await tx.user.findMany({ where: { tenantId: tenant.id } }),
  }));
  const client = (name: string) => clients.find((c) => c.name === name);
  const user = (key: string) => users.find((u) => u.email === `${key}@example.co.ke`);
  const as = (c: ReturnType<typeof client>, u: ReturnType<typeof user>, source: WeekPrincipal['source']) => {
    if (!c || !u) throw new Error('demo week: the demo clients and users of the brokerage are missing');
    return weekContext(app, {
      tenant,
      apiClient: { ...c, scopes: c.scopes },
      user: { id: u.id, name: u.name, role: u.role },
      userCode: u.agentCode,
      userBranchId: u.branchId,
      source,
    });
  };
  const staff = client('Demo staff client');
  return {
    staff: await as(staff, user('savannah.wanjiku'), 'key_actor'),
    mutua: await as(client('Demo agent client'), user('savannah.mutua'), 'key_actor'),
    hassan: await as(staff, user('savannah.hassan'), 'agent_headers'),
  };
}

/**
 * The instant of `w`: its hour on its day, or `minutesAgo` before `startedAt` (today). Today's steps lie within
 * TODAY_SPAN_MINUTES of the seed; in the first minutes after midnight every one of them (not only those that would
 * fall before midnight: the order must hold across all) is squeezed into the part of today that has passed, in the
 * same order.
 */
export function weekInstant(w: WeekWhen, today: string, startedAt: Date): Date {
  if (w.minutesAgo == null) {
    const hh = String(w.hour ?? 9).padStart(2, '0');
    return new Date(`${addDays(today, -w.day)}T${hh}:00:00+03:00`);
  }
  const midnight = new Date(`${today}T00:00:00+03:00`).getTime();
  const started = startedAt.getTime();
  if (started - TODAY_SPAN_MINUTES * 60_000 >= midnight) return new Date(started - w.minutesAgo * 60_000);
  return new Date(midnight + ((started - midnight) * (TODAY_SPAN_MINUTES - w.minutesAgo)) / TODAY_SPAN_MINUTES);
}

interface Step {
  at: Date;
  /** The policy whose story this is: one policy's steps run in turn, different policies' side by side. */
  chain: string;
  run(): Promise<void>;
}

class Week {
  readonly #policies = new Map<string, { uuid: string; policyNo: string; phone: string }>();
  readonly #today = todayNairobi(serviceNow());
  readonly #startedAt = serviceNow();

  constructor(
    private readonly app: AppServices,
    private readonly jobs: WeekJobs,
    private readonly tenant: TenantInfo,
    private readonly as: Record<WeekActor, Context>,
  ) {}

  /** The instant of `w` on the week's clock (weekInstant). */
  at(w: WeekWhen): Date {
    return weekInstant(w, this.#today, this.#startedAt);
  }

  /**
   * Every step of every policy, day by day, oldest first. Within a day each policy's steps run in their order and
   * the policies side by side (the pool has room for three at once): a first start waits for a third of the time.
   */
  async run(): Promise<void> {
    const steps: Step[] = [];
    for (const p of WEEK) {
      const add = (w: WeekWhen, run: () => Promise<void>) => steps.push({ at: this.at(w), chain: p.key, run });
      add(p.bound, () => this.bind(p));
      for (const w of p.paid ?? []) add(w, () => this.pay(p));
      if (p.endorsed) {
        const e = p.endorsed;
        add(e.at, () => this.endorse(p, e.value));
        if (e.paid) add(e.paid, () => this.pay(p));
      }
      if (p.cancelled) {
        const c = p.cancelled;
        add(c.at, () => this.cancel(p, c.reason));
      }
      if (p.claim) this.claimSteps(p, p.claim, add);
      if (p.financed) {
        const actor = this.as[p.by];
        const loan = { app: this.app, jobs: this.jobs, actor, staff: this.as.staff, policy: () => this.policy(p) };
        loanSteps(loan, p.financed, add);
      }
    }
    steps.sort((a, b) => a.at.getTime() - b.at.getTime());
    const days = new Map<string, Map<string, Step[]>>();
    for (const s of steps) {
      const day = todayNairobi(s.at);
      if (!days.has(day)) days.set(day, new Map());
      const chains = days.get(day)!;
      chains.set(s.chain, [...(chains.get(s.chain) ?? []), s]);
    }
    for (const chains of days.values()) {
      await Promise.all(
        [...chains.values()].map(async (chain) => {
          for (const s of chain)
            await withOrgClock(this.tenant.id, s.at.getTime() - serviceNow().getTime(), () => s.run());
        }),
      );
    }
  }

  claimSteps(p: WeekPolicy, c: WeekClaim, add: (w: WeekWhen, run: () => Promise<void>) => void) {
    let uuid = '';
    add(c.reported, async () => {
      uuid = await this.registerClaim(p, c);
    });
    if (c.approved) {
      const a = c.approved;
      add(a.at, () => this.approveClaim(uuid, a));
    }
  }

  async bind(p: WeekPolicy): Promise<void> {
    const ctx = this.as[p.by];
    const motorcycle = p.coverage === 'Motorcycle';
    const insurerId = await ctx
      .tx((tx) => tx.insurer.findFirstOrThrow({ where: { name: p.insurer } }))
      .then((i) => i.id);
    const risk = {
      class: motorcycle ? 'Motorcycle' : 'Motor',
      coverage: motorcycle ? 'Private' : p.coverage,
      scope: p.scope,
      year: p.vehicle.yom,
      value: p.vehicle.value ?? (p.scope === 'Comprehensive' ? 1_500_000 : null),
      insurerIds: [insurerId],
    };
    const quote = await motorQuoteService.quote(ctx, risk);
    const option = quote.options[0];
    const saved = await bindService.bind(ctx, {
      client: 'clientNo' in p.client ? { clientNo: p.client.clientNo } : { ...p.client },
      policy: {
        startDate: todayNairobi(),
        insurerId,
        class: risk.class,
        coverage: risk.coverage,
        scope: p.scope,
        coverPeriod: 'annual',
        premium: Number(option.totalMinor) / 100,
        premiumInstalments: p.instalments ?? 1,
        paymentMode: p.financed ? 'ipf' : 'full',
        productVersion: option.productVersion,
      },
      vehicles: [{ ...p.vehicle, value: risk.value }],
    });
    const client = await ctx.tx((tx) => tx.client.findUniqueOrThrow({ where: { id: saved.policy.clientId } }));
    this.#policies.set(p.key, { uuid: saved.policy.uuid, policyNo: saved.policy.policyNo, phone: client.phone });
  }

  policy(p: WeekPolicy) {
    const pol = this.#policies.get(p.key);
    if (!pol) throw new Error(`demo week: ${p.key} was not bound`);
    return pol;
  }

  /** An STK push to the policy number for its oldest open debit note (whole shillings, rounded up), paid at once. */
  async pay(p: WeekPolicy): Promise<void> {
    const ctx = this.as.staff;
    const pol = this.policy(p);
    const open = await ctx.tx((tx) =>
      tx.debitNote.findMany({ where: { policy: { uuid: pol.uuid } }, orderBy: [{ dueOn: 'asc' }, { id: 'asc' }] }),
    );
    const due = open.map((n) => n.amountMinor - n.paidMinor - n.creditedMinor).find((left) => left > 0n);
    if (!due) throw new Error(`demo week: ${p.key} owes nothing`);
    await payAtOnce(ctx, { phone: pol.phone, amount: Number((due + 99n) / 100n), account: pol.policyNo }, p.key);
  }

  async endorse(p: WeekPolicy, value: number): Promise<void> {
    const ctx = this.as.staff;
    const pol = this.policy(p);
    const e = await endorsementService.endorse(ctx, pol.uuid, {
      operation: 'change_value',
      effectiveDate: todayNairobi(),
      regNo: p.vehicle.regNo,
      value,
      note: 'Valuation report after fitting a new sound system and alloy wheels',
    });
    await endorsementService.confirm(ctx, e.uuid, pol.uuid);
  }

  async cancel(p: WeekPolicy, reason: string): Promise<void> {
    const ctx = this.as.staff;
    const pol = this.policy(p);
    const c = await cancellationService.preview(ctx, pol.uuid, {
      reason,
      requestedBy: 'insured',
      effectiveDate: todayNairobi(),
      note: 'Sale agreement seen; the buyer insures the car from today',
    });
    await cancellationService.confirm(ctx, c.uuid, pol.uuid);
  }

  async registerClaim(p: WeekPolicy, c: WeekClaim): Promise<string> {
    const pol = this.policy(p);
    const claim = await claimService.register(this.as[c.by], {
      policyId: pol.uuid,
      registration: p.vehicle.regNo,
      cause: c.cause,
      lossDate: addDays(todayNairobi(), -c.lossDaysBefore),
      lossTime: '08:15',
      lossPlace: c.place,
      description: c.description,
      reporterPhone: pol.phone,
      channel: 'phone',
      estimatedLoss: c.estimatedLoss,
    });
    return claim.uuid;
  }

  /** Acknowledged, its checklist received on paper, assessed and approved by the claims desk (staff). */
  async approveClaim(uuid: string, a: NonNullable<WeekClaim['approved']>): Promise<void> {
    const ctx = this.as.staff;
    await claimService.move(ctx, uuid, { to: 'documents_pending' });
    const lines = await claimDocumentService.checklist(ctx, uuid);
    for (const kind of lines.missing)
      await claimDocumentService.mark(ctx, uuid, { kind, status: 'received', note: 'Original seen at the branch' });
    await claimService.move(ctx, uuid, { to: 'with_underwriter' });
    await claimService.appointAssessor(ctx, uuid, { name: a.assessor });
    await claimService.move(ctx, uuid, { to: 'under_assessment' });
    await claimService.recordAssessment(ctx, uuid, { assessedAmount: a.amount });
    await claimService.approve(ctx, uuid, { approvedAmount: a.amount, reason: 'Within the assessed loss' });
  }
}
