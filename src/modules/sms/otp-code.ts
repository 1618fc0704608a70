import { createHmac, randomInt } from 'node:crypto';
import type { Config } from '../../lib/config.ts';
import { constantTimeEqual } from '../../lib/crypto.ts';
import { masterKey } from '../../lib/secret-box.ts';

/** The one-time code's rules (docs/client-area.md "Client area"), shared by client-area sign-in and premium-finance signing. */
export const OTP_RULES = {
  digits: 6,
  ttlSeconds: 300,
  maxAttempts: 5,
  /** One code per phone and purpose per this many seconds. */
  resendCooldownSeconds: 60,
  /** Codes per phone (and purpose) per hour, and per caller address per hour, per organisation. */
  perPhonePerHour: 5,
  perIpPerHour: 20,
} as const;

/** Six digits from the CSPRNG, zero-padded (randomInt is uniform: no modulo bias). */
export function newOtpCode(): string {
  return String(randomInt(0, 10 ** OTP_RULES.digits)).padStart(OTP_RULES.digits, '0');
}

/**
 * HMAC-SHA256 under the service's master key, bound to the code's own row (its uuid): a stolen table alone does not
 * let anyone test the million codes offline, and a hash cannot be moved to another row.
 */
export function hashOtp(
  config: Pick<Config, 'secretsKey' | 'dataDir'>,
  otpUuid: string,
  code: string,
  purpose: OtpPurpose = 'client-otp',
): string {
  return createHmac('sha256', masterKey(config)).update(`${purpose}:${otpUuid}:${code}`).digest('hex');
}

/** What a code is for: part of its HMAC, so a sign-in code can never sign a loan agreement or the other way round. */
export type OtpPurpose = 'client-otp' | 'ipf-sign';

export function otpMatches(
  config: Pick<Config, 'secretsKey' | 'dataDir'>,
  otpUuid: string,
  code: string,
  stored: string,
  purpose: OtpPurpose = 'client-otp',
): boolean {
  return constantTimeEqual(hashOtp(config, otpUuid, code, purpose), stored);
}
