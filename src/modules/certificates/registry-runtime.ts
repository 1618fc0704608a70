import type { AppServices } from '../../context.ts';
import type { CertificateRegistry } from './registry.ts';

/**
 * The one registry rail of a running app (like paymentsRuntime(app).rail for M-Pesa). Unless something installs
 * another (`registryRuntime(app).registry = adapter`), the first use wires the simulator over PostgreSQL
 * (jobs/rails/registry-simulator.ts), so a process without a job runner can still issue synchronously.
 * `clock` is the registry's (and the certificate module's) notion of now: tests move it past the 24-hour window.
 */
export interface RegistryRuntime {
  registry?: CertificateRegistry;
  clock: () => Date;
  /** Sends a job (set by the certificate worker); absent in a process without pg-boss: the sweep picks the work up. */
  send?: (
    queue: 'issue' | 'cancel',
    data: Record<string, number>,
    opts?: { singletonKey?: string; startAfter?: number },
  ) => Promise<void>;
}

const runtimes = new WeakMap<AppServices, RegistryRuntime>();

export function registryRuntime(app: AppServices): RegistryRuntime {
  let r = runtimes.get(app);
  if (!r) runtimes.set(app, (r = { clock: () => new Date() }));
  return r;
}

export async function registryOf(app: AppServices): Promise<CertificateRegistry> {
  const r = registryRuntime(app);
  if (!r.registry) {
    const { RegistrySimulator, DbSimStore } = await import('../../../jobs/rails/registry-simulator.ts');
    r.registry ??= new RegistrySimulator({
      store: new DbSimStore(app.db, app.config.registrySimDefaultStock),
      now: () => r.clock(),
    });
  }
  return r.registry;
}
