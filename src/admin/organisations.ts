import { z } from 'zod';
import type { TenantInfo } from '../auth/principal.ts';
import type { TenantStatus } from '../generated/prisma/enums.ts';
import { parseInput } from '../lib/validate.ts';
import { recordAudit } from '../modules/audit/audit.service.ts';
import { ensureClaimReference } from '../seed/claims-data.ts';
import { ensureCoverReference } from '../seed/cover-data.ts';
import { DEMO_TENANTS, LEVIES } from '../seed/demo-data.ts';
import { createInsurer, createIpfLenders, createReferenceData } from '../seed/demo-tenant.ts';
import { ensureSmsReference } from '../seed/sms-data.ts';
import { type Command, type CommandGroup, lines, oneOf, required, table, type Values, ORG } from './command.ts';
import { CliError } from './database.ts';
import type { Runtime } from './runtime.ts';

const TYPES = ['brokerage', 'agency', 'sacco', 'microfinance'] as const;
/** The demo organisations whose insurer panel a new one copies (src/seed/demo-data.ts). */
const TEMPLATES = DEMO_TENANTS.filter((t) => t.status === 'active');
const TEMPLATE_NAMES = TEMPLATES.map((t) => t.role);

const createSchema = z.object({
  code: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{1,39}$/, '2–40 lowercase letters, digits and hyphens, starting with a letter or digit'),
  name: z.string().trim().min(1, 'required').max(120, 'at most 120 characters'),
  paybill: z.string().regex(/^\d{5,7}$/, 'an M-Pesa paybill or till number: 5 to 7 digits'),
});

const view = (t: TenantInfo & { createdAt?: Date }) => ({
  code: t.code,
  name: t.name,
  type: t.type,
  status: t.status,
  paybill: t.paybill,
});

async function create(rt: Runtime, v: Values) {
  const type = oneOf(v, 'type', TYPES);
  const fallback = (TEMPLATE_NAMES as string[]).includes(type) ? (type as (typeof TEMPLATE_NAMES)[number]) : 'sacco';
  const templateName = oneOf(v, 'template', TEMPLATE_NAMES, fallback);
  const template = TEMPLATES.find((t) => t.role === templateName)!;
  const data = parseInput(createSchema, { code: v.code, name: v.name, paybill: v.paybill });
  const sandbox = v.sandbox === true;
  const { app } = rt;
  const created = await app.db.system(
    async (tx) => {
      if (await tx.tenant.findUnique({ where: { code: data.code } })) {
        throw new CliError(`an organisation with code ${data.code} exists already`);
      }
      const tenant = await tx.tenant.create({ data: { ...data, type, status: 'active', sandbox } });
      await createReferenceData(tx, tenant.id);
      for (const ins of template.insurers) await createInsurer(tx, tenant.id, ins);
      await createIpfLenders(tx, tenant.id);
      await ensureCoverReference(tx, tenant.id);
      await ensureClaimReference(tx, tenant.id);
      await ensureSmsReference(tx, tenant.id);
      await recordAudit(await rt.contextFor(tenant), tx, tenant.id, {
        action: 'organisation.created',
        entityType: 'tenant',
        entityId: tenant.code,
        changes: { ...view(tenant), sandbox, template: templateName, insurers: template.insurers.map((i) => i.name) },
      });
      return tenant;
      // A template's products, rates and reference rows are a few thousand inserts: more than the 5 s default.
    },
    { timeout: 120_000 },
  );
  const json = {
    ...view(created),
    sandbox,
    template: templateName,
    insurers: template.insurers.map((i) => i.name),
    levies: LEVIES.map((l) => l.code),
  };
  return {
    json,
    text: `${lines(json)}\nnext: users create --org ${created.code} --role admin …`,
  };
}

async function list(rt: Runtime) {
  const rows = await rt.app.db.system((tx) =>
    tx.tenant.findMany({
      orderBy: { id: 'asc' },
      include: { _count: { select: { users: true, apiClients: true } } },
    }),
  );
  const json = rows.map((t) => ({
    ...view(t),
    users: t._count.users,
    api_clients: t._count.apiClients,
    created_at: t.createdAt.toISOString(),
  }));
  return { json, text: table(json, ['code', 'name', 'type', 'status', 'paybill', 'users', 'api_clients']) };
}

/** Suspension binds at once: every server hears it before this returns, and the organisation's tokens get 401. */
async function setStatus(rt: Runtime, v: Values, to: TenantStatus, action: string) {
  const tenant = await rt.organisation(required(v, 'org'));
  const ctx = await rt.contextFor(tenant);
  const changed = await rt.app.db.system(async (tx) => {
    if (tenant.status === to) return false;
    await tx.tenant.update({ where: { id: tenant.id }, data: { status: to } });
    await recordAudit(ctx, tx, tenant.id, {
      action,
      entityType: 'tenant',
      entityId: tenant.code,
      changes: { status: { from: tenant.status, to } },
    });
    return true;
  });
  await rt.app.caches.sync();
  const json = { ...view({ ...tenant, status: to }), changed };
  return { json, text: changed ? `${tenant.code} is now ${to}` : `${tenant.code} was already ${to}: nothing changed` };
}

const commands: Command[] = [
  {
    name: 'create',
    summary: 'create an organisation with its paybill, levies and an insurer panel from a template',
    details:
      'Creates the organisation (active), the statutory levies, reference data, premium-finance lenders, the SMS ' +
      'opening balance and the insurer panel (motor, medical, travel and standard products) of a demo template. ' +
      'It has no users yet: add an admin with `users create`, then an API client. With --sandbox it is a sandbox ' +
      'organisation for integrators to try things on: its clock can be advanced; a live one can never be.',
    options: {
      code: { type: 'string', arg: '<code>', description: 'unique code, e.g. acme-brokers', required: true },
      name: { type: 'string', arg: '<name>', description: 'registered name', required: true },
      type: { type: 'string', arg: `<${TYPES.join('|')}>`, description: 'kind of intermediary', required: true },
      paybill: { type: 'string', arg: '<digits>', description: 'M-Pesa paybill the customers pay to', required: true },
      template: {
        type: 'string',
        arg: `<${TEMPLATE_NAMES.join('|')}>`,
        description: 'whose insurer panel to copy (default: the type, else sacco)',
      },
      sandbox: {
        type: 'boolean',
        description: 'a sandbox organisation, whose clock may be advanced (sandbox advance); fixed for its life',
      },
    },
    run: create,
  },
  { name: 'list', summary: 'list organisations with their status and counts', options: {}, run: (rt) => list(rt) },
  {
    name: 'suspend',
    summary: "suspend an organisation: its clients' tokens and token requests are refused (tenant_inactive)",
    options: { org: ORG },
    run: (rt, v) => setStatus(rt, v, 'suspended', 'organisation.suspended'),
  },
  {
    name: 'reactivate',
    summary: 'make a suspended organisation active again',
    options: { org: ORG },
    run: (rt, v) => setStatus(rt, v, 'active', 'organisation.reactivated'),
  },
];

export const organisations: CommandGroup = { name: 'organisations', summary: 'organisations (tenants)', commands };
