import type { Context } from '../../../context.ts';
import { AppError, ValidationError } from '../../../lib/problem.ts';

/**
 * Reading a file's bytes without holding the database or the heap for the whole file: the bytes come from the
 * document store one range of at most CHUNK_BYTES at a time, each on its own short transaction, so a pooled
 * connection is held only while a range is read, never while bytes go out to a client. The REST download streams
 * a file range by range (rest-compat/routes/claim-documents.ts); GraphQL's `contentBase64` reads a range, or the
 * whole file, which is priced by its size:
 * - one request may read at most one whole document's worth of bytes (the larger of DOCUMENT_MAX_BYTES and the
 *   file's size), so aliases of `contentBase64` on a large file are refused (query_too_complex) before any is read;
 * - reads longer than one range (a whole file assembled in memory) are gated: at most DOCUMENT_READS_MAX at once in
 *   a process and half of that per organisation; a read that waits longer than DB_POOL_WAIT_MS is refused 503 with
 *   Retry-After.
 */

/** Bytes per transaction: a range of the REST download, and the step a longer read is taken in. */
export const CHUNK_BYTES = 512 * 1024;

export interface StoredFile {
  uuid: string;
  storageKey: string;
  sizeBytes: number;
}

export interface ByteRange {
  /** First byte (0 when absent). */
  offset?: number | null;
  /** At most this many bytes (to the end when absent). */
  length?: number | null;
}

/**
 * The bytes of a file whose row was read under the caller's visibility (its type's access rule, or `fileOf`), from
 * `offset` for at most `length` bytes; empty past the end. 422 on a negative offset or a length under 1.
 */
export async function bytesOf(ctx: Context, file: StoredFile, range: ByteRange = {}): Promise<Buffer> {
  const offset = range.offset ?? 0;
  const errors = [];
  if (!Number.isSafeInteger(offset) || offset < 0)
    errors.push({ field: 'offset', message: 'A byte offset, 0 or more' });
  if (range.length != null && !(Number.isSafeInteger(range.length) && range.length >= 1))
    errors.push({ field: 'length', message: 'A number of bytes, 1 or more' });
  if (errors.length) throw new ValidationError(errors);
  const end = range.length == null ? file.sizeBytes : Math.min(file.sizeBytes, offset + range.length);
  const want = Math.max(0, end - offset);
  if (want === 0) return Buffer.alloc(0);
  reserve(ctx, file, want);
  const read = () => readRanges(ctx, file, offset, want);
  if (want <= CHUNK_BYTES) return read();
  const tenantId = ctx.principal?.tenant.id;
  if (tenantId === undefined) throw new AppError('unauthenticated');
  return ctx.app.documentReads.run(tenantId, read, ctx.app.config.dbPoolWaitMs, readsBusy);
}

/** Counts the bytes against the request's allowance, refusing before anything is read. */
function reserve(ctx: Context, file: StoredFile, want: number): void {
  const allowance = Math.max(ctx.app.config.documentMaxBytes, file.sizeBytes);
  const used = ctx.documentBytesRead ?? 0;
  if (used + want > allowance) {
    throw new AppError('query_too_complex', {
      detail:
        `One request may read at most ${allowance} bytes of documents (one whole file): ask for one file's ` +
        'contentBase64 per request, or read it in ranges (offset, length)',
    });
  }
  ctx.documentBytesRead = used + want;
}

async function readRanges(ctx: Context, file: StoredFile, offset: number, want: number): Promise<Buffer> {
  const out = Buffer.allocUnsafe(want);
  for (let done = 0; done < want;) {
    const n = Math.min(CHUNK_BYTES, want - done);
    const part = await ctx.tx((tx) => ctx.app.documents.read(tx, file.storageKey, offset + done, n));
    if (!part || part.length !== n) throw missingBytes(ctx, file);
    out.set(part, done);
    done += n;
  }
  return out;
}

/** Bytes missing behind a row are the store's fault, not the caller's: logged, and 503. */
function missingBytes(ctx: Context, file: StoredFile): AppError {
  ctx.log.error({ file: file.uuid, key: file.storageKey }, 'document store has no bytes for a claim document');
  return new AppError('service_unavailable', { detail: 'The document could not be read; try again later' });
}

function readsBusy(): AppError {
  return new AppError('service_unavailable', {
    detail: 'Too many large document reads are under way; retry shortly, or read the file in ranges',
    headers: { 'Retry-After': '1' },
  });
}
