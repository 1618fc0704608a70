import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Database, Tx } from '../db/client.ts';
import type { User } from '../generated/prisma/client.ts';
import { constantTimeEqual, hashSecret, newPublicId, newSecret, sha256Hex, verifySecret } from '../lib/crypto.ts';
import { motorBenefitId } from '../modules/reference/reference.service.ts';
import { DEMO_TENANTS, type DemoTenant } from './demo-data.ts';
import { ensureClaimReference } from './claims-data.ts';
import { ensureCoverReference } from './cover-data.ts';
import { ensureSmsReference } from './sms-data.ts';
import { createTenant } from './demo-tenant.ts';
import { type MasterKeySetting, PlatformSecrets } from './platform-secrets.ts';

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
/** Names of the demo secrets in platform_secrets (src/seed/platform-secrets.ts). */
const clientSecretName = (t: DemoTenant, role: string) => `demo/${t.code}/api_client/${role}`;
const agentKeyName = (t: DemoTenant, userKey: string) => `demo/${t.code}/agent_key/${userKey}`;

export interface DemoSeedOptions {
  credentialsFile: string;
  /** The origin written into the file (PUBLIC_BASE_URL, else where the server listens). */
  origin: string;
  log: (m: string) => void;
  /** The master key sealing the demo secrets in the database; default: a secrets.key beside the credentials file. */
  masterKey?: MasterKeySetting;
  /** Client secrets issued and hashed ahead ({@link issueClientSecrets}), used before any is hashed in the transaction. */
  issued?: Promise<IssuedSecret[]>;
}

/** A new client secret with its scrypt hash. */
export interface IssuedSecret {
  secret: string;
  hash: string;
}

/** How many API clients the demo organisations have: what a first start issues. */
export const DEMO_API_CLIENTS = DEMO_TENANTS.reduce((n, t) => n + Object.keys(t.apiClients).length, 0);

/**
 * `n` new client secrets hashed at once: scrypt runs on libuv's threads, so a first start hashes its demo clients'
 * secrets side by side while migrations run (~60 ms each, one after another inside the seed's transaction otherwise).
 */
export function issueClientSecrets(n: number): Promise<IssuedSecret[]> {
  return Promise.all(
    Array.from({ length: n }, async () => {
      const secret = newSecret('bgs');
      return { secret, hash: await hashSecret(secret) };
    }),
  );
}

/**
 * Loads the demo organisations once, then writes the credentials file. Idempotent per database, not per file: see
 * loadDemo. A demo client someone revoked stays revoked: re-seeding never turns a revoked credential back on; the
 * file lists it with `revoked_at` and no secret.
 */
export async function seedDemo(db: Database, opts: DemoSeedOptions): Promise<DemoCredentials> {
  return writeDemoCredentials(opts.credentialsFile, opts.origin, await loadDemo(db, opts));
}

/**
 * The demo organisations and their secrets, created on the first start. A later start (this replica or any other on
 * the same database) adds nothing and rotates nothing: the secrets issued are kept sealed with the master key in
 * platform_secrets, and are reused while they still verify against the stored hashes (a secret found only in an
 * older credentials file is taken over the same way). Only a credential for which neither holds a secret that
 * verifies is issued anew (a first start, or one an administrator rotated meanwhile). Everything runs in one
 * transaction under the start lock, so replicas started together take turns and the later ones read what the first
 * wrote; a replica whose master key cannot open the stored secrets refuses before writing anything.
 */
export async function loadDemo(
  db: Database,
  opts: Omit<DemoSeedOptions, 'origin'>,
): Promise<DemoCredentials['tenants']> {
  const previous = await readPrevious(opts.credentialsFile, opts.log);
  const key = opts.masterKey ?? { secretsKey: undefined, dataDir: path.dirname(opts.credentialsFile) };
  // A secret is hashed (scrypt, slow) inside the transaction only when one is issued, a first start's business: later
  // starts only verify, and hold the start lock no longer than that.
  const issued = [...((await opts.issued) ?? [])];
  return db.system(
    async (tx) => {
      const secrets = await PlatformSecrets.open(tx, key);
      const tenants: Record<string, TenantCreds> = {};
      for (const t of DEMO_TENANTS) {
        const prev = previous?.tenants?.[t.role];
        tenants[t.role] = await seedTenant({ tx, t, prev, secrets, log: opts.log, issued });
      }
      return tenants;
    },
    // Covers waiting for the start lock while another replica seeds a fresh database.
    { timeout: 180_000 },
  );
}

/** The credentials file an earlier start wrote, if any: a candidate for each secret (the database's come first). */
async function readPrevious(file: string, log: (m: string) => void): Promise<DemoCredentials | undefined> {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(await readFile(file, 'utf8')) as DemoCredentials;
  } catch (err) {
    // The database holds the secrets: an unreadable file costs nothing but this line.
    log(`ignoring ${file}: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/** Writes the credentials file (mode 600, atomically) for the service at `origin`; returns what it wrote. */
export async function writeDemoCredentials(
  file: string,
  origin: string,
  tenants: DemoCredentials['tenants'],
): Promise<DemoCredentials> {
  const creds: DemoCredentials = {
    base_url: `${origin}/api/v1`,
    graphql_url: `${origin}/graphql`,
    graphql_ws_url: `${origin.replace(/^http/, 'ws')}/graphql`,
    openapi_url: `${origin}/api/v1/openapi.json`,
    tenants,
  };
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(creds, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, file);
  return creds;
}

/** One organisation being seeded: what its credential steps read and write through. */
interface TenantSeed {
  tx: Tx;
  t: DemoTenant;
  /** What the credentials file held for this organisation, if anything. */
  prev: TenantCreds | undefined;
  secrets: PlatformSecrets;
  log: (m: string) => void;
  /** Secrets issued ahead, taken one by one before any is issued here. */
  issued: IssuedSecret[];
}

interface SeedingTenant extends TenantSeed {
  tenantId: number;
  userByKey(key: string): User;
}

async function seedTenant(s: TenantSeed): Promise<TenantCreds> {
  const { tx, t, log } = s;
  let tenant = await tx.tenant.findUnique({ where: { code: t.code } });
  if (!tenant) {
    log(`seeding demo organisation ${t.code}`);
    tenant = await createTenant(tx, t);
  }
  const tenantId = tenant.id;
  // Reference data added by later releases reaches an organisation seeded before them.
  await ensureClaimReference(tx, tenantId);
  await ensureSmsReference(tx, tenantId);
  await ensureCoverReference(tx, tenantId);
  const users = new Map((await tx.user.findMany({ where: { tenantId } })).map((u) => [u.email, u]));
  const seed: SeedingTenant = { ...s, tenantId, userByKey: (key) => users.get(`${key}@example.co.ke`)! };
  const api_clients = await seedApiClients(seed);
  const agents = await seedAgentKeys(seed);
  const customers = await listCustomers(tx, tenantId);
  return {
    code: tenant.code,
    name: tenant.name,
    type: tenant.type,
    ...(tenant.status !== 'active' ? { status: tenant.status } : {}),
    ...(tenant.sandbox ? { sandbox: true } : {}),
    api_clients,
    ...(t.agents.length ? { agents } : {}),
    customers,
  };
}

async function seedApiClients(seed: SeedingTenant): Promise<Record<string, ClientCred>> {
  const api_clients: Record<string, ClientCred> = {};
  for (const [role, spec] of Object.entries(seed.t.apiClients)) {
    api_clients[role] = await seedApiClient(seed, role, spec);
  }
  return api_clients;
}

/**
 * A demo client secret as platform_secrets keeps it: with the hash it last verified against, so a later start whose
 * client still has that very hash keeps it without an scrypt verification (~0.1 s of CPU per client, the bulk of a
 * warm start otherwise). A bare string is a secret stored without one.
 */
interface StoredClientSecret {
  secret: string;
  verifiedHash?: string;
}

function readStoredSecret(value: string | undefined): StoredClientSecret | undefined {
  if (!value) return undefined;
  try {
    const o = JSON.parse(value) as Partial<StoredClientSecret>;
    if (typeof o?.secret === 'string') return { secret: o.secret, verifiedHash: o.verifiedHash };
  } catch {
    // a bare secret
  }
  return { secret: value };
}

const storedSecret = (secret: string, verifiedHash: string) => JSON.stringify({ secret, verifiedHash });

/** The first of the candidate secrets (the database's, then the file's) that verifies against `hash`. */
async function firstVerifying(candidates: (string | undefined)[], hash: string): Promise<string | undefined> {
  for (const c of new Set(candidates)) if (c && (await verifySecret(c, hash))) return c;
  return undefined;
}

/**
 * A revoked client stays revoked; a secret from the database or the file that still verifies is kept (and stored
 * sealed when only the file had it); else a new one is issued and stored.
 */
async function seedApiClient(
  seed: SeedingTenant,
  role: string,
  spec: DemoTenant['apiClients'][string],
): Promise<ClientCred> {
  const { tx, t, tenantId, log, secrets } = seed;
  const name = clientSecretName(t, role);
  let row = await tx.apiClient.findFirst({ where: { tenantId, name: demoClientName(role) } });
  if (row?.revokedAt) {
    log(`demo client ${t.code}/${role} was revoked: left revoked, no secret written`);
    return { client_id: row.clientId, scopes: row.scopes, revoked_at: row.revokedAt.toISOString() };
  }
  const known = seed.prev?.api_clients?.[role];
  const fromFile = row && known?.client_id === row.clientId ? known.client_secret : undefined;
  const stored = readStoredSecret(secrets.get(name));
  const kept = !row
    ? undefined
    : stored?.verifiedHash && constantTimeEqual(stored.verifiedHash, row.secretHash)
      ? stored.secret
      : await firstVerifying([stored?.secret, fromFile], row.secretHash);
  if (row && kept) {
    await secrets.put(name, storedSecret(kept, row.secretHash));
    return { client_id: row.clientId, client_secret: kept, scopes: row.scopes };
  }
  const { secret, hash } = seed.issued.shift() ?? (await issueClientSecrets(1))[0];
  if (row) {
    log(`re-issuing the demo secret of ${t.code}/${role} (none in the database or the credentials file verifies)`);
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
        rateLimitPerMinute: spec.rateLimitPerMinute ?? null,
      },
    });
  }
  await secrets.put(name, storedSecret(secret, row.secretHash));
  return { client_id: row.clientId, client_secret: secret, scopes: row.scopes };
}

/** An agent key from the database or the file that still matches its stored hash is kept; otherwise one is issued. */
async function seedAgentKeys(seed: SeedingTenant): Promise<AgentCred[]> {
  const agents: AgentCred[] = [];
  for (const key of seed.t.agents) {
    const u = seed.userByKey(key);
    const name = agentKeyName(seed.t, key);
    const candidates = [seed.secrets.get(name), seed.prev?.agents?.find((a) => a.user_id === u.id)?.key];
    let agentKey = candidates.find((c) => c && u.agentKeyHash && constantTimeEqual(sha256Hex(c), u.agentKeyHash));
    if (!agentKey) {
      agentKey = newSecret('bak');
      await seed.tx.user.update({
        where: { id: u.id },
        data: { agentKeyHash: sha256Hex(agentKey), agentKeyIssuedAt: new Date() },
      });
    }
    await seed.secrets.put(name, agentKey);
    agents.push({ code: u.agentCode!, key: agentKey, user_id: u.id, name: u.name });
  }
  return agents;
}

/** Lists the customers of each organisation in `tenants` again (after the demo week added clients). */
export async function relistCustomers(db: Database, tenants: DemoCredentials['tenants']): Promise<void> {
  await db.system(async (tx) => {
    for (const t of Object.values(tenants)) {
      const row = await tx.tenant.findUnique({ where: { code: t.code } });
      if (row) t.customers = await listCustomers(tx, row.id);
    }
  });
}

/**
 * The first ten customers by client number, as the credentials file lists them. By number, not by row id: the
 * demo week binds several chains at once and a bind draws its client number last, so ids and numbers may be in
 * different orders (a demo organisation's numbers stay six digits, where text order is number order).
 */
async function listCustomers(tx: Tx, tenantId: number): Promise<NonNullable<TenantCreds['customers']>> {
  return (await tx.client.findMany({ where: { tenantId }, orderBy: { clientNo: 'asc' }, take: 10 })).map((c) => ({
    client_no: c.clientNo,
    phone: c.phone,
    name: c.name,
  }));
}

export { createTenant, motorBenefitId };
