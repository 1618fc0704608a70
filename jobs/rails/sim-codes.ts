import { randomBytes } from 'node:crypto';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** `n` random upper-case letters and digits: the simulators' receipt and transaction numbers. */
export function randomCode(n: number): string {
  return [...randomBytes(n)].map((b) => ALNUM[b % ALNUM.length]).join('');
}
