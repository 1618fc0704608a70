import { randomUUID } from 'node:crypto';
import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { now } from '../../../lib/clock.ts';
import { visibleClaim } from '../../access/claim.visibility.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { type CheckedUpload, checkUpload, type UploadInput } from './content.ts';
import { type LockedClaim, lockOpenClaim, requireLine } from './locks.ts';

/**
 * Uploads one document to a claim's checklist line: whoever may register a claim (agents too) may add its documents.
 * The bytes are checked (content.ts), stored behind the document store, and the line becomes `received`. The same
 * bytes sent again for the same line are not stored twice: the first file is answered, `duplicate: true`.
 */
export async function upload(ctx: Context, claimUuid: string, input: UploadInput) {
  const p = ctx.principal!;
  const actor = requireAbility(p, 'claims.register');
  const doc = checkUpload(input, ctx.app.config.documentMaxBytes);
  const seen = await visibleClaim(ctx, claimUuid, { select: { id: true } });
  const written: string[] = [];
  try {
    return await ctx.tx(async (tx) => {
      const claim = await lockOpenClaim(tx, seen.id, 'take more documents');
      const line = await requireLine(tx, claim, doc.kind);
      const existing = await tx.claimDocumentFile.findFirst({
        where: { claimId: claim.id, documentId: line.id, sha256: doc.sha256 },
        orderBy: { id: 'asc' },
      });
      if (existing) return { documentId: line.id, file: existing, duplicate: true };
      const { key } = await ctx.app.documents.put(tx, { tenantId: claim.tenantId, bytes: doc.bytes });
      written.push(key);
      const file = await recordFile(tx, { claim, lineId: line.id, doc, key, userId: actor.userId });
      await tx.claimDocument.update({
        where: { id: line.id },
        data: {
          status: 'received',
          decidedAt: now(),
          decidedByUserId: actor.userId,
          // A waiver's reason no longer describes a line that now has its document.
          ...(line.status === 'received' ? {} : { note: null }),
        },
      });
      await recordAudit(ctx, tx, claim.tenantId, {
        action: 'claim.document_uploaded',
        entityType: 'claim',
        entityId: claim.claimNo,
        changes: {
          kind: doc.kind,
          file_uuid: file.uuid,
          file_name: file.fileName,
          content_type: file.contentType,
          size_bytes: file.sizeBytes,
          sha256: file.sha256,
          line_status: { from: line.status, to: 'received' },
        },
      });
      return { documentId: line.id, file, duplicate: false };
    });
  } catch (e) {
    await forget(ctx, written);
    throw e;
  }
}

function recordFile(
  tx: Tx,
  a: { claim: LockedClaim; lineId: number; doc: CheckedUpload; key: string; userId: number },
) {
  return tx.claimDocumentFile.create({
    data: {
      tenantId: a.claim.tenantId,
      uuid: randomUUID(),
      claimId: a.claim.id,
      documentId: a.lineId,
      fileName: a.doc.fileName,
      contentType: a.doc.contentType,
      sizeBytes: a.doc.bytes.length,
      sha256: a.doc.sha256,
      storageKey: a.key,
      uploadedByUserId: a.userId,
      createdAt: now(),
    },
  });
}

/**
 * A store outside the transaction (files) has written already when the transaction fails: what it wrote is removed
 * before the failure goes on (PostgreSQL's blob went with the rollback).
 */
async function forget(ctx: Context, keys: string[]): Promise<void> {
  const store = ctx.app.documents;
  if (store.kind === 'postgres') return;
  for (const key of keys) {
    await store.remove(null, key).catch((err: unknown) => {
      ctx.log.warn({ err, key }, 'could not remove a stored document after a failed upload');
    });
  }
}
