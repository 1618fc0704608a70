import type { AppServices } from '../../../context.ts';

/** The daily premium-finance run (queue ipf.daily): reminders, overdue instalments, defaults, expiries. */
export async function runIpfDaily(_app: AppServices, _asOf?: string): Promise<Record<string, number>> {
  throw new Error('runIpfDaily: not implemented yet');
}
