import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startApp } from '../../src/app.ts';
import { freePort } from '../../src/db/embedded.ts';
import { DARAJA_SANDBOX_PASSKEY, loadConfig } from '../../src/lib/config.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { checkProductionPosture } from '../../src/lib/posture.ts';
import { seedDemo } from '../../src/seed/demo.ts';
import { spawnServer } from '../helpers/spawn.ts';
import { useKit } from '../kit.ts';

// OWASP API8:2023 Security Misconfiguration, the start-up half: settings that are fine for the demo and wrong in
// production, and the demo seed. The HTTP half (CORS, schema tools, caching, nosniff) is
// api8-security-misconfiguration.test.ts.

const OWN_PASSKEY = randomBytes(32).toString('hex');
const SECRETS_KEY = randomBytes(32).toString('base64');

const dev = useKit();
const api = dev.api;

describe('OWASP API8:2023 Security Misconfiguration (start-up)', () => {
  it('demo re-seeding: a revoked demo client is not brought back to life', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'bima-seed-'));
    const credentialsFile = path.join(dir, 'demo-credentials.json');
    const seed = () => seedDemo(dev.db, { credentialsFile, origin: dev.origin, log: () => undefined });
    try {
      const first = await seed();
      const demo = first.tenants.brokerage.api_clients;
      const demoAdmin = await api.token(demo.admin.client_id, demo.admin.client_secret!);
      const revoke = await api.post(`/api-clients/${demo.staff.client_id}/revoke`, {
        token: demoAdmin,
        idempotencyKey: randomUUID(),
      });
      expect(revoke.status, revoke.text).toBe(200);
      const row = () =>
        dev.db.system((tx) => tx.apiClient.findUniqueOrThrow({ where: { clientId: demo.staff.client_id } }));
      const before = await row();

      const again = await seed(); // credentials file present
      await rm(credentialsFile); // and lost: the path that re-issues secrets
      const fresh = await seed();
      for (const creds of [again, fresh]) {
        const shown = creds.tenants.brokerage.api_clients.staff;
        expect(shown.client_secret).toBeUndefined();
        expect(shown.revoked_at).toBe(before.revokedAt!.toISOString());
      }
      expect(
        JSON.parse(await readFile(credentialsFile, 'utf8')).tenants.brokerage.api_clients.staff.revoked_at,
      ).toEqual(expect.any(String));
      const after = await row();
      expect(after.revokedAt).toEqual(before.revokedAt);
      expect(after.secretHash).toBe(before.secretHash);
      const refused = await api.post('/oauth/token', {
        body: { client_id: demo.staff.client_id, client_secret: demo.staff.client_secret },
      });
      expect(refused.status).toBe(401);
      // A second start with the file in place changes no other secret either.
      expect(again.tenants.brokerage.api_clients.agent).toEqual(demo.agent);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  describe('start-up posture', () => {
    const warnings = () => {
      const seen: string[] = [];
      return {
        seen,
        log: {
          warn: (...a: unknown[]) =>
            void seen.push(a.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(' ')),
        },
      };
    };

    it('refuses the public Daraja sandbox passkey under NODE_ENV=production, naming MPESA_PASSKEY, before touching the database', async () => {
      const config = loadConfig({ NODE_ENV: 'production', SECRETS_KEY });
      expect(config.mpesaPasskey).toBe(DARAJA_SANDBOX_PASSKEY);
      expect(() => checkProductionPosture(config, warnings().log)).toThrow(/MPESA_PASSKEY/);
      const start = startApp({
        config,
        log: createLogger('silent'),
        databaseUrl: 'postgres://nobody@127.0.0.1:1/none',
        migrate: false,
        jobs: false,
      });
      await expect(start).rejects.toThrow(/MPESA_PASSKEY/);
      expect(() =>
        checkProductionPosture(
          loadConfig({ NODE_ENV: 'production', SECRETS_KEY, MPESA_PASSKEY: OWN_PASSKEY }),
          warnings().log,
        ),
      ).not.toThrow();
    });

    it('`npm start` under NODE_ENV=production without MPESA_PASSKEY exits non-zero with an error naming it', async () => {
      const s = spawnServer({
        NODE_ENV: 'production',
        PORT: String(await freePort()),
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
        SECRETS_KEY,
        DEMO_SEED: '0',
      });
      const { code } = await s.exited;
      expect(code).not.toBe(0);
      expect(s.output()).toMatch(/MPESA_PASSKEY/);
    }, 60_000);

    it('warns loudly in production when the secrets master key sits beside the data (SECRETS_KEY unset)', () => {
      const w = warnings();
      checkProductionPosture(loadConfig({ NODE_ENV: 'production', MPESA_PASSKEY: OWN_PASSKEY, DEMO_SEED: '0' }), w.log);
      expect(w.seen.join('\n')).toMatch(/SECRETS_KEY[\s\S]*secrets\.key/);
      const quiet = warnings();
      checkProductionPosture(
        loadConfig({ NODE_ENV: 'production', MPESA_PASSKEY: OWN_PASSKEY, SECRETS_KEY, DEMO_SEED: '0' }),
        quiet.log,
      );
      expect(quiet.seen).toEqual([]);
    });

    it('lets the demo (development) start with the sandbox passkey, with a warning, and test mode silently', () => {
      const w = warnings();
      expect(() => checkProductionPosture(loadConfig({}), w.log)).not.toThrow();
      expect(w.seen.join('\n')).toMatch(/MPESA_PASSKEY/);
      const t = warnings();
      checkProductionPosture(loadConfig({ NODE_ENV: 'test' }), t.log);
      expect(t.seen).toEqual([]);
    });
  });
});
