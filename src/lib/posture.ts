import path from 'node:path';
import { type Config, DARAJA_SANDBOX_PASSKEY } from './config.ts';
import type { Logger } from './logger.ts';

/**
 * Start-up checks of settings that are fine for the demo and wrong for a real deployment. Refuses what cannot be
 * safe in production (throws before anything starts) and warns about what an operator may have chosen knowingly.
 * Returns the warnings it logged. Test mode is the test suite's own business and is never warned about.
 */
export function checkProductionPosture(config: Config, log: Pick<Logger, 'warn'>): string[] {
  const production = config.nodeEnv === 'production';
  const sandboxPasskey = config.mpesaPasskey === DARAJA_SANDBOX_PASSKEY;
  if (production && sandboxPasskey) {
    throw new Error(
      'MPESA_PASSKEY is unset or is the public Daraja sandbox passkey, which anyone can use to sign STK requests; ' +
        "set MPESA_PASSKEY to your paybill's passkey to start with NODE_ENV=production",
    );
  }
  if (production && config.faultPoints.length) {
    throw new Error(
      'FAULT_POINTS makes the process kill itself at named points (a test harness setting); unset it to start with NODE_ENV=production',
    );
  }
  if (config.testMode && !production) return [];
  const warnings: string[] = [];
  if (sandboxPasskey) {
    warnings.push(
      'MPESA_PASSKEY is the public Daraja sandbox passkey: fine for the demo, refused under NODE_ENV=production',
    );
  }
  if (production && !config.secretsKey) {
    warnings.push(
      `SECURITY WARNING: SECRETS_KEY is unset, so the master key of the webhook signing secrets is ${path.join(config.dataDir, 'secrets.key')}, ` +
        'beside the data it protects: whoever copies DATA_DIR or its backup reads every secret. Set SECRETS_KEY from your secret store.',
    );
  }
  if (production && config.demoSeed) {
    warnings.push(
      'DEMO_SEED is on under NODE_ENV=production: demo organisations and API clients are loaded; set DEMO_SEED=0 for a real deployment',
    );
  }
  for (const w of warnings) log.warn(w);
  return warnings;
}
