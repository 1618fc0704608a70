import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Database, Tx } from '../db/client.ts';
import { takeStartLock } from '../db/migrate.ts';
import type { Config } from '../lib/config.ts';
import { decryptSecret, encryptSecret, masterKey } from '../lib/secret-box.ts';

/** Where the master key comes from: SECRETS_KEY, else DATA_DIR/secrets.key (src/lib/secret-box.ts). */
export type MasterKeySetting = Pick<Config, 'secretsKey' | 'dataDir'>;

/** A sealed random value every start opens: proof that this process holds the master key the others used. */
const CANARY = 'master-key-check';

const aad = (name: string) => `platform_secrets:${name}`;

function keySource(setting: MasterKeySetting): string {
  return setting.secretsKey
    ? 'SECRETS_KEY'
    : `the key file ${path.join(setting.dataDir, 'secrets.key')} (SECRETS_KEY is unset)`;
}

/**
 * Secrets every replica must share (the demo seed's issued credentials, and the canary), sealed with the master key
 * (AES-256-GCM, the row's name as associated data) in `platform_secrets`. Opened inside a transaction that holds the
 * start lock (src/db/migrate.ts), so a replica starting while another writes waits and then reads what it wrote.
 * Opening refuses, before anything is written, when any row does not open with this process's key: a replica with a
 * different SECRETS_KEY must not start (it would re-issue what the others hand out, and derive other callback tokens).
 */
export class PlatformSecrets {
  private constructor(
    private readonly tx: Tx,
    private readonly key: Buffer,
    private readonly opened: Map<string, string>,
  ) {}

  /** Takes the start lock, opens every stored secret and creates the canary on a first start. */
  static async open(tx: Tx, setting: MasterKeySetting): Promise<PlatformSecrets> {
    await takeStartLock(tx);
    const key = masterKey(setting);
    const rows = await tx.platformSecret.findMany({ orderBy: { name: 'asc' } });
    const opened = new Map<string, string>();
    const refused: string[] = [];
    for (const r of rows) {
      try {
        opened.set(r.name, decryptSecret(key, r.sealed, aad(r.name)));
      } catch {
        refused.push(r.name);
      }
    }
    if (refused.length) {
      throw new Error(
        `platform_secrets holds ${refused.length} secret(s) sealed with another master key (${refused.slice(0, 3).join(', ')}` +
          `${refused.length > 3 ? ', …' : ''}): this process reads its key from ${keySource(setting)}, which is not the ` +
          'key the replicas that wrote them used. Replicas must share SECRETS_KEY; refusing to start, nothing was changed.',
      );
    }
    const secrets = new PlatformSecrets(tx, key, opened);
    if (!opened.has(CANARY)) await secrets.put(CANARY, randomBytes(32).toString('base64url'));
    return secrets;
  }

  get(name: string): string | undefined {
    return this.opened.get(name);
  }

  /** Stores `value` under `name` (sealed), unless it is already what is stored. */
  async put(name: string, value: string): Promise<void> {
    if (this.opened.get(name) === value) return;
    const sealed = encryptSecret(this.key, value, aad(name));
    await this.tx.platformSecret.upsert({ where: { name }, create: { name, sealed }, update: { sealed } });
    this.opened.set(name, value);
  }
}

/**
 * Every start, demo or not: under the start lock, the stored secrets open with this process's master key (or there
 * are none yet, and the canary is stored). Throws "Replicas must share SECRETS_KEY" otherwise.
 */
export async function checkSharedMasterKey(db: Database, setting: MasterKeySetting): Promise<void> {
  await db.system((tx) => PlatformSecrets.open(tx, setting).then(() => undefined), { timeout: 60_000 });
}
