import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './config.ts';

/**
 * Webhook signing secrets must be usable to sign, so they cannot be hashed like API-client secrets: they are stored
 * AES-256-GCM encrypted under a master key (SECRETS_KEY, or DATA_DIR/secrets.key created once with mode 600 so a
 * restart can still decrypt). The row id is the associated data: a ciphertext copied onto another row won't open.
 */
const keys = new Map<string, Buffer>();

function decodeKey(b64: string, from: string): Buffer {
  const key = Buffer.from(b64.trim(), 'base64');
  if (key.length !== 32) throw new Error(`${from} must be 32 bytes, base64-encoded (got ${key.length} bytes)`);
  return key;
}

export function masterKey(config: Pick<Config, 'secretsKey' | 'dataDir'>): Buffer {
  const source = config.secretsKey ? `env:${config.secretsKey}` : `file:${config.dataDir}`;
  const cached = keys.get(source);
  if (cached) return cached;
  let key: Buffer;
  if (config.secretsKey) key = decodeKey(config.secretsKey, 'SECRETS_KEY');
  else {
    const file = path.join(config.dataDir, 'secrets.key');
    mkdirSync(config.dataDir, { recursive: true });
    try {
      // 'wx': when two processes race to create it, exactly one writes and both read the winner's key.
      writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    key = decodeKey(readFileSync(file, 'utf8'), file);
  }
  keys.set(source, key);
  return key;
}

export function encryptSecret(key: Buffer, plaintext: string, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join(
    ':',
  );
}

export function decryptSecret(key: Buffer, stored: string, aad: string): string {
  const [v, iv, tag, ct] = stored.split(':');
  if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unrecognised secret ciphertext');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}
