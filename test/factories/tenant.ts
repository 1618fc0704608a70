import { randomBytes } from 'node:crypto';
import type { Database } from '../../src/db/client.ts';
import type { TenantStatus, TenantType } from '../../src/generated/prisma/enums.ts';
import { hashSecret, newPublicId, newSecret, sha256Hex } from '../../src/lib/crypto.ts';
import { DEMO_TENANTS } from '../../src/seed/demo-data.ts';
import { createTenant } from '../../src/seed/demo.ts';

export interface TestClient {
  id: number;
  clientId: string;
  secret: string;
  scopes: string[];
}

export interface TestTenant {
  id: number;
  code: string;
  users: Record<
    'admin' | 'exec' | 'exec2' | 'agent1' | 'agent2' | 'viewer',
    { id: number; name: string; agentCode: string | null }
  >;
  clients: Record<'staff' | 'agent' | 'readonly' | 'admin', TestClient>;
  agents: { code: string; key: string; userId: number }[];
}

const ROLE_KEYS = {
  admin: 'savannah.admin',
  exec: 'savannah.wanjiku',
  exec2: 'savannah.omondi',
  agent1: 'savannah.mutua',
  agent2: 'savannah.hassan',
  viewer: 'savannah.viewer',
} as const;

/**
 * A complete organisation (the demo brokerage's shape) under a unique code, with four API clients and two agent
 * keys whose plaintext secrets are returned for the test to use.
 */
export async function createTestTenant(
  db: Database,
  opts: {
    type?: TenantType;
    status?: TenantStatus;
    /** A sandbox organisation (its clock may be advanced). */
    sandbox?: boolean;
    clientOverrides?: Partial<Record<keyof TestTenant['clients'], { scopes?: string[]; rateLimitPerMinute?: number }>>;
  } = {},
): Promise<TestTenant> {
  const suffix = randomBytes(4).toString('hex');
  const template = DEMO_TENANTS[0];
  const spec = {
    ...template,
    code: `t-${suffix}`,
    name: `Test Org ${suffix}`,
    type: opts.type ?? 'brokerage',
    status: opts.status ?? 'active',
    sandbox: opts.sandbox ?? false,
    users: template.users.map((u) => ({ ...u, email: `${u.key}.${suffix}@example.co.ke`, key: u.key })),
  };
  const scopes = {
    staff: ['read', 'quote', 'bind', 'crm', 'webhooks'],
    agent: ['read', 'quote', 'bind', 'crm'],
    readonly: ['read'],
    admin: ['read', 'admin'],
  };
  const actors = { staff: 'exec', agent: 'agent1', readonly: 'viewer', admin: 'admin' } as const;
  const secrets = await Promise.all(
    (Object.keys(scopes) as (keyof typeof scopes)[]).map(async (role) => {
      const secret = newSecret('bgs');
      return { role, secret, hash: await hashSecret(secret) };
    }),
  );
  return db.system(
    async (tx) => {
      const tenant = await createTenant(tx, spec);
      const byEmail = new Map((await tx.user.findMany({ where: { tenantId: tenant.id } })).map((u) => [u.email, u]));
      const users = Object.fromEntries(
        Object.entries(ROLE_KEYS).map(([k, key]) => {
          const u = byEmail.get(`${key}.${suffix}@example.co.ke`)!;
          return [k, { id: u.id, name: u.name, agentCode: u.agentCode }];
        }),
      ) as TestTenant['users'];
      const clients = {} as TestTenant['clients'];
      for (const { role, secret, hash } of secrets) {
        const o = opts.clientOverrides?.[role];
        const row = await tx.apiClient.create({
          data: {
            tenantId: tenant.id,
            clientId: newPublicId('bgc'),
            name: `${role} ${suffix}`,
            secretHash: hash,
            scopes: o?.scopes ?? scopes[role],
            actorUserId: users[actors[role]].id,
            createdByUserId: users.admin.id,
            rateLimitPerMinute: o?.rateLimitPerMinute ?? 60,
          },
        });
        clients[role] = { id: row.id, clientId: row.clientId, secret, scopes: row.scopes };
      }
      const agents: TestTenant['agents'] = [];
      for (const k of ['agent1', 'agent2'] as const) {
        const key = newSecret('bak');
        const u = await tx.user.update({ where: { id: users[k].id }, data: { agentKeyHash: sha256Hex(key) } });
        agents.push({ code: u.agentCode!, key, userId: u.id });
      }
      return { id: tenant.id, code: tenant.code, users, clients, agents };
    },
    { timeout: 30_000, maxWait: 30_000 },
  );
}
