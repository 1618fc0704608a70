import type { Config } from '../../../lib/config.ts';
import { decryptSecret, encryptSecret, masterKey } from '../../../lib/secret-box.ts';

/**
 * A message that carries a one-time code (docs/sms.md "One-time codes"): the code proves the customer holds the
 * handset, so the organisation must never be able to read it. The outbox keeps two texts: `body`, what everyone who
 * reads the outbox sees (the API, GraphQL, exports, logs), with each code masked; and `body_sealed`, the text as the
 * gateway is to send it, AES-256-GCM under the service's master key and bound to the message's uuid, opened only by
 * the step that hands a recipient to the gateway and emptied once no recipient is left to send.
 */

type KeyConfig = Pick<Config, 'secretsKey' | 'dataDir'>;
const aad = (uuid: string) => `sms_message:${uuid}`;

/** A code as shown: one `*` per character, so the masked text keeps the encoding and segment count of the real one. */
export const maskSecret = (value: string): string => '*'.repeat(value.length);

export function maskSecrets(secrets: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(secrets).map(([k, v]) => [k, maskSecret(v)]));
}

export const sealBody = (config: KeyConfig, uuid: string, text: string): string =>
  encryptSecret(masterKey(config), text, aad(uuid));

/** The text the gateway is to send: the sealed one when there is one, otherwise the text as recorded. */
export function bodyToSend(config: KeyConfig, m: { uuid: string; body: string; bodySealed: string | null }): string {
  return m.bodySealed ? decryptSecret(masterKey(config), m.bodySealed, aad(m.uuid)) : m.body;
}
