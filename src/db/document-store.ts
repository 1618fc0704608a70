import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../lib/config.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Tx } from './client.ts';

/**
 * The document store the deployment uses: new documents go where DOCUMENT_STORE says (PostgreSQL unless `files`);
 * a document is read and removed where its key says it is, so switching the setting leaves earlier ones readable.
 */
export function createDocumentStore(config: Pick<Config, 'documentStore' | 'documentDir'>): DocumentStore<Tx> {
  const pg = postgresDocumentStore();
  const files = filesDocumentStore(config.documentDir);
  const writer = config.documentStore === 'files' ? files : pg;
  const holder = (key: string) => (key.startsWith('file:') ? files : pg);
  return {
    kind: writer.kind,
    put: (tx, input) => writer.put(tx, input),
    get: (tx, key) => holder(key).get(tx, key),
    read: (tx, key, offset, length) => holder(key).read(tx, key, offset, length),
    remove: (tx, key) => holder(key).remove(tx, key),
  };
}

/**
 * Bytes in `document_blobs`, written in the caller's transaction: an upload that rolls back leaves no blob, and
 * row-level security keeps one organisation's blobs from another's like every tenant table. Key `pg:<uuid>`.
 */
export function postgresDocumentStore(): DocumentStore<Tx> {
  return {
    kind: 'postgres',
    async put(tx, { tenantId, bytes }) {
      const key = `pg:${randomUUID()}`;
      await tx.documentBlob.create({ data: { key, tenantId, content: bytes as Uint8Array<ArrayBuffer> } });
      return { key };
    },
    async get(tx, key) {
      const row = await tx.documentBlob.findUnique({ where: { key }, select: { content: true } });
      return row?.content ?? null;
    },
    async read(tx, key, offset, length) {
      // substring() on the stored value: PostgreSQL fetches only the TOAST chunks the range covers (of a value stored
      // uncompressed; a compressed one is decompressed up to the range's end), so a range costs its own size.
      const rows = await tx.$queryRaw<{ part: Uint8Array }[]>`
        SELECT substring(content FROM ${offset + 1}::int FOR ${length}::int) AS part FROM document_blobs WHERE key = ${key}`;
      return rows[0]?.part ?? null;
    },
    async remove(tx, key) {
      // Without a transaction there is nothing to do: a blob written in one that failed went with its rollback.
      if (tx) await tx.documentBlob.deleteMany({ where: { key } });
    },
  };
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** `file:<tenant>/<yyyy>/<mm>/<uuid>`: every part ours, so a key can name nothing outside the store's directory. */
const FILE_KEY = new RegExp(`^file:([1-9]\\d{0,9})/(\\d{4})/(\\d{2})/(${UUID})$`);

/**
 * Bytes as files under `root`/<tenant>/<yyyy>/<mm>/<uuid> (key `file:<that relative path>`). Nothing of the caller's
 * input reaches a path: the tenant id is ours, the rest is the date and a fresh uuid. A file is written to a temporary
 * name, flushed and renamed, so a reader never sees half of one; the transaction is not the file system's, so the
 * caller removes a put whose transaction failed (DocumentStore).
 */
export function filesDocumentStore(root: string): DocumentStore<Tx> {
  const pathOf = (key: string): string => {
    // Keys come from our own rows: one of another shape is a bug, not a caller's mistake.
    if (!FILE_KEY.test(key)) throw new Error(`Not a file-store key: ${JSON.stringify(key)}`);
    return path.join(root, ...key.slice('file:'.length).split('/'));
  };
  return {
    kind: 'filesystem',
    async put(_tx, { tenantId, bytes }) {
      if (!Number.isSafeInteger(tenantId) || tenantId <= 0) throw new Error(`Bad tenant id ${tenantId}`);
      const now = new Date();
      const rel = [
        String(tenantId),
        String(now.getUTCFullYear()),
        String(now.getUTCMonth() + 1).padStart(2, '0'),
        randomUUID(),
      ];
      const key = `file:${rel.join('/')}`;
      const final = pathOf(key);
      await mkdir(path.dirname(final), { recursive: true, mode: 0o700 });
      await writeAtomically(final, bytes);
      return { key };
    },
    async get(_tx, key) {
      try {
        return await readFile(pathOf(key));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw e;
      }
    },
    async read(_tx, key, offset, length) {
      let fh;
      try {
        fh = await open(pathOf(key), 'r');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw e;
      }
      try {
        const buf = Buffer.alloc(length);
        const { bytesRead } = await fh.read(buf, 0, length, offset);
        return buf.subarray(0, bytesRead);
      } finally {
        await fh.close();
      }
    },
    async remove(_tx, key) {
      await rm(pathOf(key), { force: true });
    },
  };
}

/** Temporary file beside the final one (same file system, so the rename is atomic), flushed before the rename. */
async function writeAtomically(final: string, bytes: Uint8Array): Promise<void> {
  const tmp = `${final}.${randomUUID()}.tmp`;
  try {
    const fh = await open(tmp, 'wx', 0o600);
    try {
      await fh.writeFile(bytes);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, final);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
