import type PgBoss from 'pg-boss';
import type { AppServices } from '../src/context.ts';

/** The daily policy lifecycle job (time-based states, renewal notices). */
export async function registerPolicyWorkers(_boss: PgBoss, _app: AppServices): Promise<void> {
  // Implemented by the lifecycle change.
}
