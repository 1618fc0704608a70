import type { Tx } from '../db/client.ts';
import {
  BUSINESS_SOURCES,
  type DemoInsurer,
  type DemoTenant,
  EXCESS_TEXT,
  IPF_LENDERS,
  KES,
  LEVIES,
  MOTOR_BENEFITS,
  MOTOR_RATING,
  PLL_PER_SEAT,
  PROSPECT_TYPES,
  STANDARD_PRODUCTS,
} from './demo-data.ts';
import { ensureClaimReference } from './claims-data.ts';
import { ensureCoverReference } from './cover-data.ts';
import { ensureSmsReference } from './sms-data.ts';

/** One demo organisation with its staff, reference data, insurers' motor products, lenders and customers. */
export async function createTenant(tx: Tx, t: DemoTenant) {
  const tenant = await tx.tenant.create({
    data: {
      code: t.code,
      name: t.name,
      type: t.type,
      status: t.status,
      paybill: t.paybill,
      sandbox: t.sandbox ?? false,
    },
  });
  const tenantId = tenant.id;
  const branches = await createBranches(tx, tenantId, t.branches);
  const users = await createUsers(tx, tenantId, t, branches);
  await createReferenceData(tx, tenantId);
  for (const ins of t.insurers) await createInsurer(tx, tenantId, ins);
  await createIpfLenders(tx, tenantId);
  await ensureCoverReference(tx, tenantId);
  await ensureClaimReference(tx, tenantId);
  await ensureSmsReference(tx, tenantId);
  const customers = await createCustomers(tx, tenantId, t, { users, branches });
  // Client numbers issued from here on continue after the demo customers.
  await tx.tenantCounter.create({ data: { tenantId, name: 'client_no', value: BigInt(customers) } });
  return tenant;
}

/** Ids by branch code. */
async function createBranches(tx: Tx, tenantId: number, list: DemoTenant['branches']): Promise<Map<string, number>> {
  const branches = new Map<string, number>();
  for (const b of list) branches.set(b.code, (await tx.branch.create({ data: { tenantId, ...b } })).id);
  return branches;
}

/** Ids by user key. */
async function createUsers(
  tx: Tx,
  tenantId: number,
  t: DemoTenant,
  branches: Map<string, number>,
): Promise<Map<string, number>> {
  const users = new Map<string, number>();
  for (const u of t.users) {
    const row = await tx.user.create({
      data: {
        tenantId,
        name: u.name,
        email: u.email,
        phone: u.phone,
        role: u.role,
        agentCode: u.agentCode ?? null,
        branchId: u.branch ? branches.get(u.branch) : null,
      },
    });
    users.set(u.key, row.id);
  }
  return users;
}

export async function createReferenceData(tx: Tx, tenantId: number): Promise<void> {
  await tx.levy.createMany({ data: LEVIES.map((l) => ({ tenantId, ...l })) });
  await tx.standardProduct.createMany({ data: STANDARD_PRODUCTS.map((p) => ({ tenantId, ...p })) });
  await tx.businessSource.createMany({ data: BUSINESS_SOURCES.map((name) => ({ tenantId, name })) });
  await tx.prospectType.createMany({ data: PROSPECT_TYPES.map((p) => ({ tenantId, ...p })) });
}

/**
 * The insurer and a motor product for each class it writes and each cover rated for that class: one INSERT per table
 * (the products with their ids returned, then every product's rate bands, tonnage bands and benefits), not one round
 * trip per row — the demo seed's reference data is most of a first start's statements.
 */
export async function createInsurer(tx: Tx, tenantId: number, ins: DemoInsurer): Promise<void> {
  const insurer = await tx.insurer.create({
    data: {
      tenantId,
      name: ins.name,
      legalName: ins.legalName,
      registryMemberId: ins.registryMemberId,
      commissionRateBps: ins.commissionRateBps,
      monogram: ins.monogram,
    },
  });
  const rating = MOTOR_RATING[ins.name];
  const products = ins.classes.flatMap((vehicleClass) =>
    (['comprehensive', 'tpo'] as const).flatMap((coverType) => {
      const r = rating.classes[vehicleClass]?.[coverType];
      return r ? [{ name: `${ins.name} ${vehicleClass} ${coverType}`, vehicleClass, coverType, r }] : [];
    }),
  );
  if (!products.length) return;
  const rows = await tx.motorProduct.createManyAndReturn({
    data: products.map(({ name, vehicleClass, coverType, r }) => ({
      tenantId,
      insurerId: insurer.id,
      name,
      vehicleClass,
      coverType,
      excessText: EXCESS_TEXT,
      minPremiumMinor: r.minPremium != null ? KES(r.minPremium) : null,
      flatPremiumMinor: r.flatPremium != null ? KES(r.flatPremium) : null,
      pllPerSeatMinor: PLL_PER_SEAT,
      maxInstalments: rating.maxInstalments,
      ipfEligible: rating.ipfEligible,
      maxVehicleAgeYears: coverType === 'comprehensive' ? rating.maxAge : null,
    })),
    select: { id: true, name: true },
  });
  const idOf = new Map(rows.map((row) => [row.name, row.id]));
  const each = <T>(rowsOf: (p: (typeof products)[number], motorProductId: number) => T[]): T[] =>
    products.flatMap((p) => rowsOf(p, idOf.get(p.name)!));
  await tx.motorRateBand.createMany({
    data: each(({ r }, motorProductId) =>
      (r.rateBands ?? []).map((b) => ({
        tenantId,
        motorProductId,
        upToValueMinor: b.upTo == null ? null : KES(b.upTo),
        rateBps: b.bps,
      })),
    ),
  });
  await tx.motorTonnageBand.createMany({
    data: each(({ r }, motorProductId) =>
      (r.tonnageBands ?? []).map((b) => ({
        tenantId,
        motorProductId,
        upToTonnesMilli: b.upToTonnes == null ? null : b.upToTonnes * 1000,
        premiumMinor: KES(b.premium),
      })),
    ),
  });
  await tx.motorProductBenefit.createMany({
    data: each(({ coverType }, motorProductId) =>
      MOTOR_BENEFITS.filter((b) => b.covers.includes(coverType)).map((b, i) => ({
        tenantId,
        motorProductId,
        name: b.name,
        limitMinor: b.limitMinor,
        sortOrder: i,
      })),
    ),
  });
}

export async function createIpfLenders(tx: Tx, tenantId: number): Promise<void> {
  for (const l of IPF_LENDERS) {
    await tx.ipfLender.create({
      data: {
        tenantId,
        name: l.name,
        minPremiumMinor: KES(l.minPremium),
        tenors: { create: l.tenors.map((x) => ({ tenantId, ...x })) },
      },
    });
  }
}

/** The customers, numbered C-000001 on in list order; returns how many. */
async function createCustomers(
  tx: Tx,
  tenantId: number,
  t: DemoTenant,
  ids: { users: Map<string, number>; branches: Map<string, number> },
): Promise<number> {
  const { users, branches } = ids;
  let n = 0;
  for (const c of t.customers) {
    n += 1;
    await tx.client.create({
      data: {
        tenantId,
        clientNo: `C-${String(n).padStart(6, '0')}`,
        name: c.name,
        phone: c.phone,
        idNo: c.idNo,
        kraPin: c.kraPin ?? null,
        email: c.email ?? null,
        salesPersonId: c.salesPerson ? users.get(c.salesPerson) : null,
        riskManagerId: c.riskManager ? users.get(c.riskManager) : null,
        branchId: c.branch ? branches.get(c.branch) : null,
        createdByUserId: c.riskManager ? users.get(c.riskManager) : null,
        onboardedVia: 'import',
      },
    });
  }
  return n;
}
