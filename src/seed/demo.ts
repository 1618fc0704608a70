import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Database, Tx } from '../db/client.ts';
import type { User } from '../generated/prisma/client.ts';
import { constantTimeEqual, hashSecret, newPublicId, newSecret, sha256Hex, verifySecret } from '../lib/crypto.ts';
import { motorBenefitId } from '../modules/reference/reference.service.ts';
import { DEMO_TENANTS, type DemoTenant } from './demo-data.ts';
import { createTenant } from './demo-tenant.ts';

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
 * stays revoked: re-seeding never turns a revoked credential back on; the file lists it with `revoked_at` and no
 * secret.
 */
export async function seedDemo(
  db: Database,
  opts: { credentialsFile: string; origin: string; log: (m: string) => void },
): Promise<DemoCredentials> {
  const previous = existsSync(opts.credentialsFile)
    ? (JSON.parse(await readFile(opts.credentialsFile, 'utf8')) as DemoCredentials)
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

/** A freshly issued API-client secret and its hash. */
interface FreshSecret {
  secret: string;
  hash: string;
}

/** One organisation being seeded: what its credential steps read and write through. */
interface TenantSeed {
  tx: Tx;
  t: DemoTenant;
  tenantId: number;
  /** What the credentials file held for this organisation, if anything. */
  prev: TenantCreds | undefined;
  log: (m: string) => void;
  userByKey(key: string): User;
}

async function seedTenant(
  db: Database,
  t: DemoTenant,
  prev: TenantCreds | undefined,
  log: (m: string) => void,
): Promise<TenantCreds> {
  // Secrets are hashed before the transaction: scrypt is slow and must not hold a connection.
  const fresh = await freshSecrets(t);
  return db.system(
    async (tx) => {
      let tenant = await tx.tenant.findUnique({ where: { code: t.code } });
      if (!tenant) {
        log(`seeding demo organisation ${t.code}`);
        tenant = await createTenant(tx, t);
      }
      const tenantId = tenant.id;
      const users = new Map((await tx.user.findMany({ where: { tenantId } })).map((u) => [u.email, u]));
      const seed: TenantSeed = { tx, t, tenantId, prev, log, userByKey: (key) => users.get(`${key}@example.co.ke`)! };
      const api_clients = await seedApiClients(seed, fresh);
      const agents = await seedAgentKeys(seed);
      const customers = await listCustomers(tx, tenantId);
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

/** A new secret per API client, whether or not it will be needed. */
async function freshSecrets(t: DemoTenant): Promise<Record<string, FreshSecret>> {
  return Object.fromEntries(
    await Promise.all(
      Object.keys(t.apiClients).map(async (r) => {
        const secret = newSecret('bgs');
        return [r, { secret, hash: await hashSecret(secret) }] as const;
      }),
    ),
  );
}

async function seedApiClients(
  seed: TenantSeed,
  fresh: Record<string, FreshSecret>,
): Promise<Record<string, ClientCred>> {
  const api_clients: Record<string, ClientCred> = {};
  for (const [role, spec] of Object.entries(seed.t.apiClients)) {
    api_clients[role] = await seedApiClient(seed, role, spec, fresh[role]);
  }
  return api_clients;
}

/** A revoked client stays revoked; a secret from the file that still verifies is kept; else the fresh one is issued. */
async function seedApiClient(
  seed: TenantSeed,
  role: string,
  spec: DemoTenant['apiClients'][string],
  fresh: FreshSecret,
): Promise<ClientCred> {
  const { tx, t, tenantId, log } = seed;
  let row = await tx.apiClient.findFirst({ where: { tenantId, name: demoClientName(role) } });
  if (row?.revokedAt) {
    log(`demo client ${t.code}/${role} was revoked: left revoked, no secret written`);
    return { client_id: row.clientId, scopes: row.scopes, revoked_at: row.revokedAt.toISOString() };
  }
  const known = seed.prev?.api_clients?.[role];
  if (
    row &&
    known?.client_secret &&
    known.client_id === row.clientId &&
    (await verifySecret(known.client_secret, row.secretHash))
  ) {
    return { client_id: row.clientId, client_secret: known.client_secret, scopes: row.scopes };
  }
  const { secret, hash } = fresh;
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
        actorUserId: seed.userByKey(spec.actor).id,
        createdByUserId: seed.userByKey(spec.actor).id,
        rateLimitPerMinute: spec.rateLimitPerMinute ?? 60,
      },
    });
  }
  return { client_id: row.clientId, client_secret: secret, scopes: row.scopes };
}

/** An agent key from the file that still matches its stored hash is kept; otherwise a new one is issued. */
async function seedAgentKeys(seed: TenantSeed): Promise<AgentCred[]> {
  const agents: AgentCred[] = [];
  for (const key of seed.t.agents) {
    const u = seed.userByKey(key);
    const known = seed.prev?.agents?.find((a) => a.user_id === u.id);
    if (known && u.agentKeyHash && constantTimeEqual(sha256Hex(known.key), u.agentKeyHash)) {
      agents.push({ code: u.agentCode!, key: known.key, user_id: u.id, name: u.name });
      continue;
    }
    const agentKey = newSecret('bak');
    await seed.tx.user.update({
      where: { id: u.id },
      data: { agentKeyHash: sha256Hex(agentKey), agentKeyIssuedAt: new Date() },
    });
    agents.push({ code: u.agentCode!, key: agentKey, user_id: u.id, name: u.name });
  }
  return agents;
}

/** The first ten customers, as the credentials file lists them. */
async function listCustomers(tx: Tx, tenantId: number): Promise<NonNullable<TenantCreds['customers']>> {
  return (await tx.client.findMany({ where: { tenantId }, orderBy: { id: 'asc' }, take: 10 })).map((c) => ({
    client_no: c.clientNo,
    phone: c.phone,
    name: c.name,
  }));
}

export { createTenant, motorBenefitId };
