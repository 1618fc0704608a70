import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GROUPS } from '../src/admin/cli.ts';
import { type CliRun, runAdmin, runAdminJson } from './helpers/admin-cli.ts';
import { expectProblem, useKit } from './kit.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const t = useKit();

type Run = CliRun;
const admin = (args: string[], env: Record<string, string> = {}) => runAdmin(t.databaseUrl, args, env);
const adminJson = <T = any>(...args: string[]) => runAdminJson<T>(t.databaseUrl, ...args);

/** An organisation from a template with an admin user and an admin API client, made through the CLI. */
async function newOrganisation(code: string) {
  const org = await adminJson(
    ...['organisations', 'create', '--code', code, '--name', `${code} Ltd`, '--type', 'agency', '--paybill', '600900'],
  );
  const user = await adminJson(
    ...['users', 'create', '--org', code, '--role', 'admin', '--name', 'Akinyi Admin'],
    ...['--email', `admin@${code}.example`, '--phone', '0712000111'],
  );
  const client = await adminJson(
    ...['api-clients', 'create', '--org', code, '--name', 'Back office', '--scopes', 'read,admin,crm'],
    ...['--actor', `admin@${code}.example`],
  );
  return { org, user, client };
}

// Each run is a fresh node process loading the service's modules: seconds each on a busy machine.
describe('admin CLI help', { timeout: 240_000 }, () => {
  it('lists every command, and each command has --help naming all its options', async () => {
    const top = await admin(['--help']);
    expect(top.code).toBe(0);
    const runs = GROUPS.flatMap((g) => g.commands.map((c) => ({ g, c })));
    for (const { g, c } of runs) expect(top.stdout).toContain(`${g.name} ${c.name}`);
    const helps: Run[] = [];
    for (let i = 0; i < runs.length; i += 4) {
      const batch = runs.slice(i, i + 4).map(({ g, c }) => admin([g.name, c.name, '--help'], { DATABASE_URL: '' }));
      helps.push(...(await Promise.all(batch)));
    }
    runs.forEach(({ g, c }, i) => {
      const h = helps[i];
      expect(h.code, h.stderr).toBe(0);
      expect(h.stdout).toContain(`Usage: npm run admin -- ${g.name} ${c.name}`);
      for (const name of [...Object.keys(c.options), 'json', 'operator']) expect(h.stdout).toContain(`--${name}`);
    });
  });
});

describe('admin CLI on a running service', { timeout: 240_000 }, () => {
  it('creates an organisation from a template, a user and an API client whose secret gets a token', async () => {
    const { org, user, client } = await newOrganisation('cli-agency');
    expect(org).toMatchObject({ code: 'cli-agency', type: 'agency', status: 'active', template: 'agency' });
    expect(org.levies).toEqual(['TL', 'PHCF', 'SD']);
    expect(user).toMatchObject({ role: 'admin', email: 'admin@cli-agency.example', phone: '254712000111' });
    expect(client.client_secret).toMatch(/^bgs_/);
    expect(client.scopes).toEqual(['admin', 'crm', 'read']);

    const token = await t.api.token(client.client_id, client.client_secret);
    const me = await t.api.get('/me', { token });
    expect(me.status, me.text).toBe(200);
    const insurers = await t.api.get('/insurers', { token });
    expect(insurers.status, insurers.text).toBe(200);
    expect(insurers.body.data.map((i: { name: string }) => i.name).sort()).toEqual([...org.insurers].sort());

    const listed = await adminJson('organisations', 'list');
    expect(listed.find((o: { code: string }) => o.code === 'cli-agency')).toMatchObject({ users: 1, api_clients: 1 });
    const clients = await adminJson('api-clients', 'list', '--org', 'cli-agency');
    expect(clients).toEqual([
      expect.objectContaining({ client_id: client.client_id, actor: 'admin@cli-agency.example' }),
    ]);
    expect(JSON.stringify(clients)).not.toContain(client.client_secret);
  });

  it('suspends (tokens 401, token requests 403 tenant_inactive) and reactivates; the audit log names the operator', async () => {
    const { client } = await newOrganisation('cli-suspend');
    const token = await t.api.token(client.client_id, client.client_secret);
    expect((await t.api.get('/me', { token })).status).toBe(200);

    const suspended = await admin(['organisations', 'suspend', '--org', 'cli-suspend', '--operator', 'Njeri Ops']);
    expect(suspended.code, suspended.stderr).toBe(0);
    expect(suspended.stdout).toContain('cli-suspend is now suspended');
    expectProblem(await t.api.get('/me', { token }), 401, 'tenant_inactive');
    const refused = await t.api.post('/oauth/token', {
      body: { client_id: client.client_id, client_secret: client.client_secret },
    });
    expectProblem(refused, 403, 'tenant_inactive');

    expect(await adminJson('organisations', 'reactivate', '--org', 'cli-suspend')).toMatchObject({
      status: 'active',
      changed: true,
    });
    expect((await t.api.get('/me', { token })).status).toBe(200);

    const audit = await t.api.gql(
      '{ auditLog(first: 20, entityType: "tenant") { edges { node { actorType actorLabel action actorUserId } } } }',
      {},
      { token },
    );
    expect(audit.body.errors).toBeUndefined();
    expect(audit.body.data.auditLog.edges.map((e: { node: unknown }) => e.node)).toEqual(
      expect.arrayContaining([
        {
          actorType: 'system',
          actorLabel: 'system (operator Njeri Ops)',
          action: 'organisation.suspended',
          actorUserId: null,
        },
        // Without --operator, $USER is the operator.
        {
          actorType: 'system',
          actorLabel: 'system (operator wanjiru.ops)',
          action: 'organisation.reactivated',
          actorUserId: null,
        },
      ]),
    );
  });

  it('with no --operator and no $USER (a container, a CI job) records the OS user rather than refusing', async () => {
    const { client } = await newOrganisation('cli-nouser');
    const token = await t.api.token(client.client_id, client.client_secret);
    const r = await admin(['organisations', 'suspend', '--org', 'cli-nouser'], { USER: '' });
    expect(r.code, r.stderr).toBe(0);
    const reactivated = await admin(['organisations', 'reactivate', '--org', 'cli-nouser'], { USER: '' });
    expect(reactivated.code, reactivated.stderr).toBe(0);
    const audit = await t.api.gql(
      '{ auditLog(first: 5, entityType: "tenant") { edges { node { actorLabel action } } } }',
      {},
      { token },
    );
    expect(audit.body.data.auditLog.edges.map((e: { node: unknown }) => e.node)).toEqual(
      expect.arrayContaining([
        { actorLabel: `system (operator ${os.userInfo().username})`, action: 'organisation.reactivated' },
      ]),
    );
  });

  it('rotates a secret (printed once, the old one refused with no grace) and revokes a client', async () => {
    const { client } = await newOrganisation('cli-rotate');
    const orgArgs = ['--org', 'cli-rotate', '--client-id', client.client_id];
    const rotated = await adminJson('api-clients', 'rotate', ...orgArgs, '--grace-hours', '0');
    expect(rotated.client_secret).toMatch(/^bgs_/);
    expect(rotated.client_secret).not.toBe(client.client_secret);
    const old = await t.api.post('/oauth/token', {
      body: { client_id: client.client_id, client_secret: client.client_secret },
    });
    expectProblem(old, 401, 'invalid_client');
    const token = await t.api.token(client.client_id, rotated.client_secret);
    expect((await t.api.get('/me', { token })).status).toBe(200);

    const revoked = await adminJson('api-clients', 'revoke', ...orgArgs);
    expect(revoked.revoked_at).toEqual(expect.any(String));
    expectProblem(await t.api.get('/me', { token }), 401, 'invalid_token');
    const again = await t.api.post('/oauth/token', {
      body: { client_id: client.client_id, client_secret: rotated.client_secret },
    });
    expectProblem(again, 401, 'invalid_client');
  });

  it('tops up the SMS balance, as the API then reports it', async () => {
    const { client } = await newOrganisation('cli-sms');
    const token = await t.api.token(client.client_id, client.client_secret);
    const before = await t.api.get('/sms/balance', { token });
    expect(before.status, before.text).toBe(200);
    const topped = await adminJson('sms', 'top-up', '--org', 'cli-sms', '--units', '250', '--reference', 'INV-77');
    expect(topped.balance_units).toBe(before.body.data.balance_units + 250);
    const after = await t.api.get('/sms/balance', { token });
    expect(after.body.data.balance_units).toBe(topped.balance_units);
  });

  it('issues an agent key, rotates the callback token, lists webhooks and runs the daily jobs', async () => {
    await newOrganisation('cli-ops');
    const agent = await adminJson(
      ...['agents', 'create', '--org', 'cli-ops', '--name', 'Otieno Agent', '--email', 'otieno@cli-ops.example'],
      ...['--phone', '0722000333', '--agent-code', 'AG-0900'],
    );
    expect(agent).toMatchObject({ role: 'agent', agent_code: 'AG-0900', agent_key: expect.stringMatching(/^bak_/) });
    const first = await adminJson('payments', 'rotate-callback-token', '--org', 'cli-ops');
    const second = await adminJson('payments', 'rotate-callback-token', '--org', 'cli-ops');
    expect(second.generation).toBe(first.generation + 1);
    expect(await adminJson('webhooks', 'list', '--org', 'cli-ops')).toEqual([]);
    expect(await adminJson('webhooks', 'resend', '--org', 'cli-ops')).toEqual({ resent: [] });
    const run = await adminJson('lifecycle', 'run', '--date', '2026-06-16');
    expect(run).toMatchObject({ date: '2026-06-16', policies: { failures: 0 }, premium_finance: { failures: 0 } });
  });

  it('refuses bad input with a clear message and a non-zero exit', async () => {
    const [badType, missing, unknownOrg, badCode, badDate, unknownFlag, dup] = await Promise.all([
      admin(['organisations', 'create', '--code', 'x1', '--name', 'X', '--type', 'insurer', '--paybill', '123456']),
      admin(['api-clients', 'create', '--org', 'cli-agency']),
      admin(['sms', 'top-up', '--org', 'no-such-org', '--units', '5', '--reference', 'r', '--json']),
      admin(['organisations', 'create', '--code', 'BAD CODE', '--name', 'X', '--type', 'sacco', '--paybill', '12']),
      admin(['lifecycle', 'run', '--date', '2026-02-30']),
      admin(['organisations', 'list', '--colour']),
      admin([
        'users',
        'create',
        '--org',
        'no-such-org',
        '--role',
        'boss',
        '--name',
        'a',
        '--email',
        'a@b.c',
        '--phone',
        '1',
      ]),
    ]);
    expect(badType).toMatchObject({ code: 2, stdout: '' });
    expect(badType.stderr).toContain('--type must be one of brokerage, agency, sacco, microfinance, got insurer');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing --name <name>, --scopes <scope,…>');
    expect(unknownOrg.code).toBe(1);
    expect(JSON.parse(unknownOrg.stderr)).toEqual({
      error: { code: 'refused', message: 'no organisation with code "no-such-org"' },
    });
    expect(badCode.code).toBe(1);
    expect(badCode.stderr).toMatch(/code: .*lowercase/);
    expect(badCode.stderr).toMatch(/paybill: .*5 to 7 digits/);
    expect(badDate).toMatchObject({ code: 2 });
    expect(badDate.stderr).toContain('--date must be a real calendar date');
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toContain("Unknown option '--colour'");
    expect(dup.code).toBe(2);
    expect(dup.stderr).toContain('--role must be one of admin, account_exec, agent, viewer');
  });

  it('refuses clearly when no database is running', async () => {
    const r = await admin(['organisations', 'list'], { DATABASE_URL: '', DATA_DIR: path.join(ROOT, '.data/none') });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no database is running');
  });
});
