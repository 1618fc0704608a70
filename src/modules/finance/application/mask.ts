/**
 * Identifiers shown partly (docs/premium-finance.md "Premium finance: applications"): enough to recognise, not enough to reuse. The
 * application record and the agreement text show them this way; the lender alone is sent them in full.
 */

/** National ID or passport: the last four characters. */
export function maskIdNumber(v: string): string {
  return v.length <= 4 ? '*'.repeat(v.length) : `${'*'.repeat(v.length - 4)}${v.slice(-4)}`;
}

/** KRA PIN: its kind letter and the last four characters (A*****6331M). */
export function maskKraPin(v: string): string {
  return v.length <= 5 ? '*'.repeat(v.length) : `${v[0]}${'*'.repeat(v.length - 5)}${v.slice(-4)}`;
}

/** A phone (2547XXXXXXXX): the country and network prefix and the last three digits (25471*******49 style). */
export function maskPhone(v: string): string {
  return v.length <= 8 ? '*'.repeat(v.length) : `${v.slice(0, 5)}${'*'.repeat(v.length - 8)}${v.slice(-3)}`;
}
