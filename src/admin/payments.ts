import { rotateCallbackToken } from '../modules/payments/callback-token.ts';
import { type Command, type CommandGroup, lines, required, type Values, ORG } from './command.ts';
import type { Runtime } from './runtime.ts';

/**
 * The callback token is derived from the master key and the channel's generation (payments/callback-token.ts): it is
 * never shown; prompts sent from now on carry the new one, and the old one is honoured for the grace period.
 */
async function rotate(rt: Runtime, v: Values) {
  const ctx = await rt.orgContext(required(v, 'org'));
  const ch = await rotateCallbackToken(ctx);
  const json = {
    organisation: ctx.principal!.tenant.code,
    generation: ch.generation,
    previous_valid_until: ch.previousValidUntil?.toISOString() ?? null,
    rotated_at: ch.rotatedAt?.toISOString() ?? null,
  };
  return { json, text: lines(json) };
}

const commands: Command[] = [
  {
    name: 'rotate-callback-token',
    summary: "rotate an organisation's M-Pesa callback token (the old one lapses after its grace period)",
    details:
      'New STK prompts carry the next token in their CallBackURL; callbacks with the previous token are taken for ' +
      'MPESA_CALLBACK_TOKEN_GRACE_SECONDS. The token is derived from the master key, so run this with the same ' +
      'SECRETS_KEY (or DATA_DIR) as the service.',
    options: { org: ORG },
    run: rotate,
  },
];

export const payments: CommandGroup = { name: 'payments', summary: 'mobile-money channel', commands };
