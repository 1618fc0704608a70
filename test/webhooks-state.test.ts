import { describe, expect, it } from 'vitest';
import {
  afterAttempt,
  AUTOMATIC_ATTEMPTS,
  InvalidTransition,
  manualRetry,
  RETRY_DELAYS_SECONDS,
  type DeliveryState,
} from '../src/modules/webhooks/delivery-state.ts';
import { isPrivateAddress } from '../src/modules/webhooks/url-guard.ts';
import { signatureHeader, signV1 } from '../src/modules/webhooks/signature.ts';
import { createHmac } from 'node:crypto';

const now = new Date('2026-11-25T10:00:00.000Z');
const plus = (s: number) => new Date(now.getTime() + s * 1000);

describe('delivery state machine', () => {
  it('pending → delivered on a 2xx', () => {
    const r = afterAttempt({ status: 'pending', attemptCount: 0, cycleStart: 0 }, true, now);
    expect(r).toMatchObject({ status: 'delivered', attemptCount: 1, nextAttemptAt: null, deliveredAt: now });
  });

  it('pending → retry_scheduled at +1 min on a failure', () => {
    const r = afterAttempt({ status: 'pending', attemptCount: 0, cycleStart: 0 }, false, now);
    expect(r).toMatchObject({ status: 'retry_scheduled', attemptCount: 1, nextAttemptAt: plus(60) });
  });

  it('walks the whole schedule +1 m, +5 m, +30 m, +2 h, +12 h, then failed after the sixth attempt', () => {
    expect(RETRY_DELAYS_SECONDS).toEqual([60, 300, 1800, 7200, 43_200]);
    expect(AUTOMATIC_ATTEMPTS).toBe(6);
    let s: DeliveryState = { status: 'pending', attemptCount: 0, cycleStart: 0 };
    const gaps: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = afterAttempt(s, false, now);
      expect(r.status).toBe('retry_scheduled');
      gaps.push((r.nextAttemptAt!.getTime() - now.getTime()) / 1000);
      s = r;
    }
    expect(gaps).toEqual([60, 300, 1800, 7200, 43_200]);
    const last = afterAttempt(s, false, now);
    expect(last).toMatchObject({ status: 'failed', attemptCount: 6, nextAttemptAt: null, failedAt: now });
  });

  it('retry_scheduled → delivered on a 2xx', () => {
    const r = afterAttempt({ status: 'retry_scheduled', attemptCount: 3, cycleStart: 0 }, true, now);
    expect(r).toMatchObject({ status: 'delivered', attemptCount: 4, nextAttemptAt: null });
  });

  it('refuses an attempt on a delivered or failed delivery', () => {
    expect(() => afterAttempt({ status: 'delivered', attemptCount: 1, cycleStart: 0 }, true, now)).toThrow(
      InvalidTransition,
    );
    expect(() => afterAttempt({ status: 'failed', attemptCount: 6, cycleStart: 0 }, false, now)).toThrow(
      InvalidTransition,
    );
  });

  it('failed → pending on a manual retry, due now, as a new one-attempt cycle', () => {
    const r = manualRetry({ status: 'failed', attemptCount: 6, cycleStart: 0 }, now);
    expect(r).toEqual({ status: 'pending', attemptCount: 6, cycleStart: 6, nextAttemptAt: now });
    expect(afterAttempt(r, true, now)).toMatchObject({ status: 'delivered', attemptCount: 7 });
    expect(afterAttempt(r, false, now)).toMatchObject({ status: 'failed', attemptCount: 7, nextAttemptAt: null });
  });

  it('refuses a manual retry of anything but a failed delivery', () => {
    for (const status of ['pending', 'retry_scheduled', 'delivered'] as const) {
      expect(() => manualRetry({ status, attemptCount: 1, cycleStart: 0 }, now)).toThrow(InvalidTransition);
    }
  });
});

describe('private address check', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.9.9.9', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['fd00::1', true],
    ['fe80::1', true],
    ['::ffff:127.0.0.1', true],
    ['8.8.8.8', false],
    ['172.32.0.1', false],
    ['2001:4860:4860::8888', false],
    ['::ffff:8.8.8.8', false],
  ])('%s private: %s', (addr, expected) => {
    expect(isPrivateAddress(addr)).toBe(expected);
  });
});

describe('signature', () => {
  it('is the hex HMAC-SHA256 of "{t}.{body}", one v1 per secret', () => {
    const body = '{"a":1}';
    const expected = createHmac('sha256', 'whsec_x').update(`1700000000.${body}`).digest('hex');
    expect(signV1('whsec_x', 1_700_000_000, body)).toBe(expected);
    expect(signatureHeader(['whsec_x', 'whsec_y'], 1_700_000_000, body)).toBe(
      `t=1700000000,v1=${expected},v1=${createHmac('sha256', 'whsec_y').update(`1700000000.${body}`).digest('hex')}`,
    );
  });
});

describe('signing secrets at rest', () => {
  it('keeps a generated master key in DATA_DIR/secrets.key (mode 600) and reuses it after a restart', async () => {
    const { mkdtempSync, statSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { decryptSecret, encryptSecret, masterKey } = await import('../src/lib/secret-box.ts');
    const dataDir = mkdtempSync(path.join(tmpdir(), 'bima-secrets-'));
    const key = masterKey({ secretsKey: undefined, dataDir });
    const file = path.join(dataDir, 'secrets.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').equals(key)).toBe(true);
    const sealed = encryptSecret(key, 'whsec_abc', 'row-1');
    expect(sealed).not.toContain('whsec_abc');
    // A "restarted" process (same directory, configured through SECRETS_KEY this time) opens what the first sealed.
    expect(
      decryptSecret(
        masterKey({ secretsKey: readFileSync(file, 'utf8').trim(), dataDir: '/nonexistent' }),
        sealed,
        'row-1',
      ),
    ).toBe('whsec_abc');
    expect(() => decryptSecret(key, sealed, 'row-2')).toThrow();
    expect(() => masterKey({ secretsKey: Buffer.alloc(16).toString('base64'), dataDir })).toThrow(/32 bytes/);
  });

  it('reads the webhook settings from the environment', async () => {
    const { loadConfig } = await import('../src/lib/config.ts');
    expect(loadConfig({ NODE_ENV: 'production' }).webhooksAllowPrivate).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test' }).webhooksAllowPrivate).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test', WEBHOOKS_ALLOW_PRIVATE: '0' }).webhooksAllowPrivate).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', WEBHOOKS_ALLOW_PRIVATE: '1', SECRETS_KEY: 'k' })).toMatchObject({
      webhooksAllowPrivate: true,
      secretsKey: 'k',
    });
  });
});
