import type PgBoss from 'pg-boss';
import type { AppServices } from '../src/context.ts';

/** Certificate issuance and cancellation against the registry rail. */
export async function registerCertificateWorkers(_boss: PgBoss, _app: AppServices): Promise<void> {
  // Implemented by the certificates change.
}
