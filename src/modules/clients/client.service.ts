import { z } from 'zod';
import { requireAbility, type Principal } from '../../auth/principal.ts';
import type { Context } from '../../context.ts';
import type { Prisma, Tx } from '../../db/client.ts';
import { normaliseIdNo, normaliseKraPin, normalisePhone } from '../../lib/identifiers.ts';
import { DuplicateClientError, type DuplicateMatch, notFound, ValidationError } from '../../lib/problem.ts';
import { escapeLike, parseInput, ymd } from '../../lib/validate.ts';
import { diffFields, recordAudit, snakeKeys } from '../audit/audit.service.ts';
import { ownsClient, clientVisibility } from './client.policy.ts';

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullish()
    .transform((v) => (v ? v : null));
const normalised = (fn: (s: string) => string | null, message: string) =>
  z
    .string()
    .nullish()
    .transform((v, c) => {
      if (v == null || v.trim() === '') return null;
      const n = fn(v);
      if (!n) c.addIssue({ code: 'custom', message });
      return n ?? null;
    });

const fields = {
  type: z.enum(['individual', 'corporate']).nullish(),
  name: z.string().trim().min(2, 'at least 2 characters').max(200),
  phone: z.string().transform((v, c) => {
    const n = normalisePhone(v);
    if (!n) c.addIssue({ code: 'custom', message: 'not a Kenyan mobile number (07…, 01…, +254…)' });
    return n ?? '';
  }),
  email: z.string().trim().toLowerCase().email('not an email address').max(200).nullish(),
  idNo: normalised(normaliseIdNo, 'national ID (6–14 digits) or passport number (6–12 letters and digits)'),
  kraPin: normalised(normaliseKraPin, 'KRA PIN is A or P, 9 digits and a letter (e.g. A004416331M)'),
  dateOfBirth: ymd()
    .refine((d) => Date.parse(`${d}T00:00:00Z`) < Date.now(), 'a past date')
    .nullish(),
  physicalAddress: optionalText(500),
  branchId: z.number().int().positive().nullish(),
  riskManagerId: z.number().int().positive().nullish(),
  salesPersonId: z.number().int().positive().nullish(),
  businessSourceId: z.number().int().positive().nullish(),
  prospectTypeId: z.number().int().positive().nullish(),
  sector: optionalText(100),
  altName: optionalText(200),
  altPhone: normalised(normalisePhone, 'not a Kenyan mobile number'),
  altEmail: z.string().trim().toLowerCase().email('not an email address').max(200).nullish(),
  force: z.boolean().nullish(),
};
const createSchema = z.object(fields);
const updateSchema = z.object({ ...fields, name: fields.name.nullish(), phone: fields.phone.nullish() });

export type ClientQuery = { include?: Prisma.ClientInclude; select?: Prisma.ClientSelect };

export interface ClientListFilters {
  search?: string | null;
  type?: 'individual' | 'corporate' | null;
  salesPersonId?: number | null;
  riskManagerId?: number | null;
}

export function clientListWhere(p: Principal, f: ClientListFilters): Prisma.ClientWhereInput {
  const and: Prisma.ClientWhereInput[] = [clientVisibility(p)];
  if (f.type) and.push({ type: f.type });
  if (f.salesPersonId != null) and.push({ salesPersonId: f.salesPersonId });
  if (f.riskManagerId != null) and.push({ riskManagerId: f.riskManagerId });
  const term = f.search?.trim();
  if (term) {
    const or: Prisma.ClientWhereInput[] = [
      { name: { contains: escapeLike(term), mode: 'insensitive' } },
      { clientNo: { equals: term, mode: 'insensitive' } },
    ];
    const phone = normalisePhone(term);
    if (phone) or.push({ phone }, { altPhone: phone });
    const idNo = normaliseIdNo(term);
    if (idNo) or.push({ idNo });
    const pin = normaliseKraPin(term);
    if (pin) or.push({ kraPin: pin });
    and.push({ OR: or });
  }
  return { AND: and };
}

/**
 * Serialises work on the same identifiers (phone, ID number, PIN) within a tenant: concurrent creations of one
 * person queue here, so the second sees the first and matches it instead of duplicating it.
 */
export async function lockIdentifiers(tx: Tx, tenantId: number, ids: (string | null | undefined)[]): Promise<void> {
  const keys = [...new Set(ids.filter((v): v is string => !!v))].sort();
  for (const k of keys)
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${tenantId}::int, hashtext(${`client-identity:${k}`}))`;
}

export interface MatchCandidate {
  id: number;
  clientNo: string;
  name: string;
  phone: string;
  idNo: string | null;
  kraPin: string | null;
  createdByUserId: number | null;
  salesPersonId: number | null;
}

/** Existing clients of the tenant sharing a phone, ID number or tax PIN (whoever may see them). */
export async function findIdentityMatches(
  tx: Tx,
  ids: { phone?: string | null; idNo?: string | null; kraPin?: string | null },
  excludeId?: number,
): Promise<(MatchCandidate & { matched: string[] })[]> {
  const or: Prisma.ClientWhereInput[] = [];
  if (ids.phone) or.push({ phone: ids.phone });
  if (ids.idNo) or.push({ idNo: ids.idNo });
  if (ids.kraPin) or.push({ kraPin: ids.kraPin });
  if (!or.length) return [];
  const rows = await tx.client.findMany({
    where: { OR: or, ...(excludeId ? { id: { not: excludeId } } : {}) },
    orderBy: { id: 'asc' },
    take: 20,
  });
  return rows.map((r) => ({
    ...r,
    matched: [
      ...(ids.phone && r.phone === ids.phone ? ['phone'] : []),
      ...(ids.idNo && r.idNo === ids.idNo ? ['id_no'] : []),
      ...(ids.kraPin && r.kraPin === ids.kraPin ? ['kra_pin'] : []),
    ],
  }));
}

/**
 * What a 409 may reveal: the number and name only of clients the caller owns; any other match is a redacted marker
 * (`redacted: true`, number and name null) that says only which identifier collided, so a caller can tell a typo
 * from a real duplicate without learning who else is on the books.
 */
export function describeMatches(p: Principal, matches: (MatchCandidate & { matched: string[] })[]): DuplicateMatch[] {
  return matches.map((m) => {
    const visible = ownsClient(p, m);
    return {
      clientNo: visible ? m.clientNo : null,
      name: visible ? m.name : null,
      matched: m.matched,
      redacted: !visible,
    };
  });
}

/** Gap-free per-tenant numbers: the counter row stays locked until commit, and a rollback gives the number back. */
export async function nextNumber(tx: Tx, tenantId: number, name: string): Promise<bigint> {
  const rows = await tx.$queryRaw<{ value: bigint }[]>`
    INSERT INTO tenant_counters (tenant_id, name, value) VALUES (${tenantId}, ${name}, 1)
    ON CONFLICT (tenant_id, name) DO UPDATE SET value = tenant_counters.value + 1
    RETURNING value`;
  return rows[0].value;
}

async function assertRefs(
  tx: Tx,
  d: {
    branchId?: number | null;
    riskManagerId?: number | null;
    salesPersonId?: number | null;
    businessSourceId?: number | null;
    prospectTypeId?: number | null;
  },
) {
  const errors: { field: string; message: string }[] = [];
  if (d.branchId != null && !(await tx.branch.findUnique({ where: { id: d.branchId } })))
    errors.push({ field: 'branch_id', message: 'no such branch' });
  if (d.riskManagerId != null) {
    const u = await tx.user.findUnique({ where: { id: d.riskManagerId } });
    if (!u || u.disabled || !['account_exec', 'admin'].includes(u.role))
      errors.push({ field: 'risk_manager_id', message: 'no such risk manager' });
  }
  if (d.salesPersonId != null) {
    const u = await tx.user.findUnique({ where: { id: d.salesPersonId } });
    if (!u || u.disabled || !['agent', 'account_exec'].includes(u.role))
      errors.push({ field: 'sales_person_id', message: 'no such sales person' });
  }
  if (d.businessSourceId != null && !(await tx.businessSource.findUnique({ where: { id: d.businessSourceId } }))) {
    errors.push({ field: 'business_source_id', message: 'no such business source' });
  }
  if (d.prospectTypeId != null && !(await tx.prospectType.findUnique({ where: { id: d.prospectTypeId } }))) {
    errors.push({ field: 'prospect_type_id', message: 'no such prospect type' });
  }
  if (errors.length) throw new ValidationError(errors);
}

const toDate = (d: string | null | undefined) => (d ? new Date(`${d}T00:00:00Z`) : d === null ? null : undefined);

export const clientService = {
  list(ctx: Context, filters: ClientListFilters, query: Prisma.ClientFindManyArgs) {
    const p = ctx.principal!;
    return ctx.tx((tx) =>
      tx.client.findMany({ ...query, where: clientListWhere(p, filters), orderBy: { id: 'desc' } }),
    );
  },

  async get(ctx: Context, clientNo: string, query: ClientQuery = {}) {
    const p = ctx.principal!;
    const row = await ctx.tx((tx) =>
      tx.client.findFirst({ ...query, where: { AND: [{ clientNo }, clientVisibility(p)] } }),
    );
    if (!row) throw notFound('Client');
    return row;
  },

  /** Creates a client inside `tx` (shared with quote and policy saves, which create clients too). */
  async createInTx(ctx: Context, tx: Tx, input: unknown, opts: { onboardedVia?: string } = {}) {
    const p = ctx.principal!;
    const actor = requireAbility(p, 'clients.write');
    const d = parseInput(createSchema, input);
    await assertRefs(tx, d);
    await lockIdentifiers(tx, p.tenant.id, [d.phone, d.idNo, d.kraPin]);
    if (!d.force) {
      const matches = await findIdentityMatches(tx, d);
      if (matches.length) throw new DuplicateClientError(describeMatches(p, matches));
    }
    const clientNo = `C-${String(await nextNumber(tx, p.tenant.id, 'client_no')).padStart(6, '0')}`;
    const created = await tx.client.create({
      data: {
        tenantId: p.tenant.id,
        clientNo,
        type: d.type ?? 'individual',
        name: d.name,
        phone: d.phone,
        email: d.email ?? null,
        idNo: d.idNo,
        kraPin: d.kraPin,
        dateOfBirth: toDate(d.dateOfBirth) ?? null,
        physicalAddress: d.physicalAddress,
        branchId: d.branchId ?? actor.branchId,
        riskManagerId: d.riskManagerId ?? (actor.role === 'account_exec' ? actor.userId : null),
        salesPersonId: d.salesPersonId ?? (actor.role === 'agent' ? actor.userId : null),
        businessSourceId: d.businessSourceId ?? null,
        prospectTypeId: d.prospectTypeId ?? null,
        sector: d.sector,
        altName: d.altName,
        altPhone: d.altPhone,
        altEmail: d.altEmail ?? null,
        onboardedVia: opts.onboardedVia ?? 'api',
        createdByUserId: actor.userId,
        createdByApiClientId: p.apiClient.id,
      },
    });
    const { force, ...recorded } = d;
    await recordAudit(ctx, tx, p.tenant.id, {
      action: 'client.created',
      entityType: 'client',
      entityId: clientNo,
      changes: { ...snakeKeys(recorded), ...(force ? { forced_despite_matches: true } : {}) },
    });
    return created;
  },

  create(ctx: Context, input: unknown) {
    return ctx.tx((tx) => clientService.createInTx(ctx, tx, input));
  },

  async update(ctx: Context, clientNo: string, input: unknown) {
    const p = ctx.principal!;
    requireAbility(p, 'clients.write');
    const d = parseInput(updateSchema, input);
    return ctx.tx(async (tx) => {
      const before = await tx.client.findFirst({ where: { AND: [{ clientNo }, clientVisibility(p)] } });
      if (!before) throw notFound('Client');
      await assertRefs(tx, d);
      const changedIds = {
        phone: d.phone && d.phone !== before.phone ? d.phone : null,
        idNo: d.idNo && d.idNo !== before.idNo ? d.idNo : null,
        kraPin: d.kraPin && d.kraPin !== before.kraPin ? d.kraPin : null,
      };
      await lockIdentifiers(tx, p.tenant.id, Object.values(changedIds));
      if (!d.force) {
        const matches = await findIdentityMatches(tx, changedIds, before.id);
        if (matches.length) throw new DuplicateClientError(describeMatches(p, matches));
      }
      const patch = {
        type: d.type ?? undefined,
        name: d.name ?? undefined,
        phone: d.phone || undefined,
        email: d.email ?? undefined,
        idNo: d.idNo ?? undefined,
        kraPin: d.kraPin ?? undefined,
        dateOfBirth: toDate(d.dateOfBirth),
        physicalAddress: d.physicalAddress ?? undefined,
        branchId: d.branchId ?? undefined,
        riskManagerId: d.riskManagerId ?? undefined,
        salesPersonId: d.salesPersonId ?? undefined,
        businessSourceId: d.businessSourceId ?? undefined,
        prospectTypeId: d.prospectTypeId ?? undefined,
        sector: d.sector ?? undefined,
        altName: d.altName ?? undefined,
        altPhone: d.altPhone ?? undefined,
        altEmail: d.altEmail ?? undefined,
      };
      const changes = diffFields(before as unknown as Record<string, unknown>, patch);
      if (!Object.keys(changes).length) return before;
      const after = await tx.client.update({ where: { id: before.id }, data: patch });
      await recordAudit(ctx, tx, p.tenant.id, {
        action: 'client.updated',
        entityType: 'client',
        entityId: clientNo,
        changes,
      });
      return after;
    });
  },
};
