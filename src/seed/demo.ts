import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Database, Tx } from '../db/client.ts';
import { constantTimeEqual, hashSecret, newPublicId, newSecret, sha256Hex, verifySecret } from '../lib/crypto.ts';
import { motorBenefitId } from '../modules/reference/reference.service.ts';
import {
  IPF_LENDERS,
  KES,
  MOTOR_RATING,
  PLL_PER_SEAT,
  BUSINESS_SOURCES,
  DEMO_TENANTS,
  type DemoTenant,
  EXCESS_TEXT,
  LEVIES,
  MOTOR_BENEFITS,
  PROSPECT_TYPES,
  STANDARD_PRODUCTS,
} from './demo-data.ts';

interface ClientCred {
  client_id: string;
  /** Absent for a revoked client: there is nothing it could be used for. */
  client_secret?: string;
  scopes: string[];
  /** Set when an administrator revoked the demo client: seeding leaves it revoked. */
  revoked_at?: string;
}
interface AgentCred {
  code: string;
  key: string;
  user_id: number;
  name: string;
}
interface TenantCreds {
  code: string;
  name: string;
  type: string;
  status?: string;
  api_clients: Record<string, ClientCred>;
  agents?: AgentCred[];
  customers?: { client_no: string; phone: string; name: string }[];
}
export interface DemoCredentials {
  base_url: string;
  graphql_url: string;
  graphql_ws_url: string;
  openapi_url: string;
  tenants: Record<string, TenantCreds>;
}

const demoClientName = (role: string) => `Demo ${role} client`;

/**
 * Loads the demo organisations once. A second start adds nothing and keeps every secret: the plaintext secrets live
 * only in the credentials file, and are reused while they still verify against the stored hashes. If that file
 * was lost, the demo secrets are re-issued (the only way to show a hashed secret again). A demo client someone revoked
 * stays revoked: re-seeding never turns a revoked credential back on; the file lists it with `revoked_at` and no secret.
 */
export async function seedDemo(
  db: Database,
  opts: { credentialsFile: string; origin: string; log: (m: string) => void },
): Promise<DemoCredentials> {
  const previous: DemoCredentials | undefined = existsSync(opts.credentialsFile)
    ? JSON.parse(await readFile(opts.credentialsFile, 'utf8'))
    : undefined;
  const tenants: Record<string, TenantCreds> = {};
  for (const t of DEMO_TENANTS) {
    tenants[t.role] = await seedTenant(db, t, previous?.tenants?.[t.role], opts.log);
  }
  const creds: DemoCredentials = {
    base_url: `${opts.origin}/api/v1`,
    graphql_url: `${opts.origin}/graphql`,
    graphql_ws_url: `${opts.origin.replace(/^http/, 'ws')}/graphql`,
    openapi_url: `${opts.origin}/api/v1/openapi.json`,
    tenants,
  };
  await mkdir(path.dirname(opts.credentialsFile), { recursive: true });
  const tmp = `${opts.credentialsFile}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(creds, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, opts.credentialsFile);
  return creds;
}

async function seedTenant(
  db: Database,
  t: DemoTenant,
  prev: TenantCreds | undefined,
  log: (m: string) => void,
): Promise<TenantCreds> {
  // Secrets are hashed before the transaction: scrypt is slow and must not hold a connection.
  const fresh = Object.fromEntries(
    await Promise.all(
      Object.keys(t.apiClients).map(async (r) => {
        const secret = newSecret('bgs');
        return [r, { secret, hash: await hashSecret(secret) }] as const;
      }),
    ),
  );
  return db.system(
    async (tx) => {
      let tenant = await tx.tenant.findUnique({ where: { code: t.code } });
      if (!tenant) {
        log(`seeding demo organisation ${t.code}`);
        tenant = await createTenant(tx, t);
      }
      const tenantId = tenant.id;
      const users = new Map((await tx.user.findMany({ where: { tenantId } })).map((u) => [u.email, u]));
      const userByKey = (key: string) => users.get(`${key}@example.co.ke`)!;

      const api_clients: Record<string, ClientCred> = {};
      for (const [role, spec] of Object.entries(t.apiClients)) {
        let row = await tx.apiClient.findFirst({ where: { tenantId, name: demoClientName(role) } });
        if (row?.revokedAt) {
          log(`demo client ${t.code}/${role} was revoked: left revoked, no secret written`);
          api_clients[role] = { client_id: row.clientId, scopes: row.scopes, revoked_at: row.revokedAt.toISOString() };
          continue;
        }
        const known = prev?.api_clients?.[role];
        if (
          row &&
          known?.client_secret &&
          known.client_id === row.clientId &&
          (await verifySecret(known.client_secret, row.secretHash))
        ) {
          api_clients[role] = { client_id: row.clientId, client_secret: known.client_secret, scopes: row.scopes };
          continue;
        }
        const { secret, hash } = fresh[role];
        if (row) {
          log(`re-issuing the demo secret of ${t.code}/${role} (credentials file missing or stale)`);
          row = await tx.apiClient.update({
            where: { id: row.id },
            data: { secretHash: hash, secretRotatedAt: new Date() },
          });
        } else {
          row = await tx.apiClient.create({
            data: {
              tenantId,
              clientId: newPublicId('bgc'),
              name: demoClientName(role),
              secretHash: hash,
              scopes: spec.scopes,
              actorUserId: userByKey(spec.actor).id,
              createdByUserId: userByKey(spec.actor).id,
              rateLimitPerMinute: spec.rateLimitPerMinute ?? 60,
            },
          });
        }
        api_clients[role] = { client_id: row.clientId, client_secret: secret, scopes: row.scopes };
      }

      const agents: AgentCred[] = [];
      for (const key of t.agents) {
        const u = userByKey(key);
        const known = prev?.agents?.find((a) => a.user_id === u.id);
        if (known && u.agentKeyHash && constantTimeEqual(sha256Hex(known.key), u.agentKeyHash)) {
          agents.push({ code: u.agentCode!, key: known.key, user_id: u.id, name: u.name });
          continue;
        }
        const agentKey = newSecret('bak');
        await tx.user.update({
          where: { id: u.id },
          data: { agentKeyHash: sha256Hex(agentKey), agentKeyIssuedAt: new Date() },
        });
        agents.push({ code: u.agentCode!, key: agentKey, user_id: u.id, name: u.name });
      }

      const customers = (await tx.client.findMany({ where: { tenantId }, orderBy: { id: 'asc' }, take: 10 })).map(
        (c) => ({
          client_no: c.clientNo,
          phone: c.phone,
          name: c.name,
        }),
      );
      return {
        code: tenant.code,
        name: tenant.name,
        type: tenant.type,
        ...(tenant.status !== 'active' ? { status: tenant.status } : {}),
        api_clients,
        ...(t.agents.length ? { agents } : {}),
        customers,
      };
    },
    { timeout: 60_000 },
  );
}

export async function createTenant(tx: Tx, t: DemoTenant) {
  const tenant = await tx.tenant.create({
    data: { code: t.code, name: t.name, type: t.type, status: t.status, paybill: t.paybill },
  });
  const tenantId = tenant.id;
  const branches = new Map<string, number>();
  for (const b of t.branches) branches.set(b.code, (await tx.branch.create({ data: { tenantId, ...b } })).id);
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
  await tx.levy.createMany({ data: LEVIES.map((l) => ({ tenantId, ...l })) });
  await tx.standardProduct.createMany({ data: STANDARD_PRODUCTS.map((p) => ({ tenantId, ...p })) });
  await tx.businessSource.createMany({ data: BUSINESS_SOURCES.map((name) => ({ tenantId, name })) });
  await tx.prospectType.createMany({ data: PROSPECT_TYPES.map((p) => ({ tenantId, ...p })) });
  for (const ins of t.insurers) {
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
    for (const vehicleClass of ins.classes) {
      for (const coverType of ['comprehensive', 'tpo'] as const) {
        const r = rating.classes[vehicleClass]?.[coverType];
        if (!r) continue;
        const product = await tx.motorProduct.create({
          data: {
            tenantId,
            insurerId: insurer.id,
            name: `${ins.name} ${vehicleClass} ${coverType}`,
            vehicleClass,
            coverType,
            excessText: EXCESS_TEXT,
            minPremiumMinor: r.minPremium != null ? KES(r.minPremium) : null,
            flatPremiumMinor: r.flatPremium != null ? KES(r.flatPremium) : null,
            pllPerSeatMinor: PLL_PER_SEAT,
            maxInstalments: rating.maxInstalments,
            ipfEligible: rating.ipfEligible,
            maxVehicleAgeYears: coverType === 'comprehensive' ? rating.maxAge : null,
            rateBands: {
              create: (r.rateBands ?? []).map((b) => ({
                tenantId,
                upToValueMinor: b.upTo == null ? null : KES(b.upTo),
                rateBps: b.bps,
              })),
            },
            tonnageBands: {
              create: (r.tonnageBands ?? []).map((b) => ({
                tenantId,
                upToTonnesMilli: b.upToTonnes == null ? null : b.upToTonnes * 1000,
                premiumMinor: KES(b.premium),
              })),
            },
          },
        });
        await tx.motorProductBenefit.createMany({
          data: MOTOR_BENEFITS.filter((b) => b.covers.includes(coverType)).map((b, i) => ({
            tenantId,
            motorProductId: product.id,
            name: b.name,
            limitMinor: b.limitMinor,
            sortOrder: i,
          })),
        });
      }
    }
  }
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
  await tx.tenantCounter.create({ data: { tenantId, name: 'client_no', value: BigInt(n) } });
  return tenant;
}

export { motorBenefitId };
