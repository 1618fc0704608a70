/** What a replay says in place of a secret that is shown once. */
export const SECRET_REPLAY_NOTE =
  'Replayed response: the secret was shown once, in the first response to this Idempotency-Key.';

/** An Idempotency-Key replay of a body that showed a secret in `data[key]`: the secret nulled, and a note saying why. */
export function redactSecret<D extends object, K extends keyof D>(body: { data: D }, key: K) {
  return { ...body, data: { ...body.data, [key]: null }, replay_note: SECRET_REPLAY_NOTE };
}
