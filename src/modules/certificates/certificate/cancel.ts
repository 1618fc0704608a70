import type { Context } from '../../../context.ts';
import { requireAbility } from '../../../auth/principal.ts';
import { AppError, ValidationError } from '../../../lib/problem.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { cancelAtRegistry } from '../registry-cancel.ts';
import { CANCEL_REASONS } from '../../../ports/certificate-registry.ts';
import { CertificateStateError, RegistryRefusedError, registryUnavailable } from './problems.ts';
import { visibleCertificate } from './read.ts';

/** Cancels one certificate at the registry now; past 24 hours the registry refuses (422 registry_refused). */
export async function cancelCertificate(ctx: Context, certificateNo: string, reasonId: number) {
  requireAbility(ctx.principal!, 'policies.create');
  if (!Number.isInteger(reasonId) || !(reasonId in CANCEL_REASONS)) {
    throw new ValidationError([{ field: 'reasonId', message: `one of ${Object.keys(CANCEL_REASONS).join(', ')}` }]);
  }
  const c = await visibleCertificate(ctx, certificateNo);
  if (!['issued', 'cancel_refused', 'cancel_pending'].includes(c.status))
    throw new CertificateStateError(`Certificate ${c.certificateNo} is ${c.status}`);
  // Its own transaction, not the request's: the registry's answer (cancelled or cancel_refused) is kept even
  // when the request ends in a problem document (which rolls the request's transaction back).
  const status = await cancelAtRegistry(ctx.app, c.id, c.tenantId, {
    reasonId,
    audit: (tx) =>
      recordAudit(ctx, tx, c.tenantId, {
        action: 'certificates.cancel',
        entityType: 'certificate',
        entityId: c.id,
        changes: { certificate_no: c.certificateNo, reason_id: reasonId },
      }),
  }).catch((err) => {
    if (err instanceof AppError) throw err;
    ctx.log.warn({ err }, 'registry cancel failed');
    throw registryUnavailable(
      'The certificate registry did not answer; the cancellation stays cancel_pending and is retried automatically',
    );
  });
  if (status !== 'cancelled' && status !== 'cancel_refused')
    throw new CertificateStateError(`Certificate ${c.certificateNo} is ${status}`);
  const row = await ctx.tx((tx) => tx.certificate.findUniqueOrThrow({ where: { id: c.id } }));
  if (status === 'cancel_refused')
    throw new RegistryRefusedError(row.errorMessage ?? 'Cancellation refused', row.errorCode ?? 'ER007');
  return row;
}
