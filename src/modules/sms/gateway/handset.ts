import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import { normalisePhone } from '../../../lib/identifiers.ts';
import { notFound, ValidationError } from '../../../lib/problem.ts';
import type { HandsetMessage } from '../../../ports/sms-gateway.ts';

/**
 * GET /simulator/sms/handsets/{phone}/messages, GraphQL simulatorHandsetMessages (docs/sms.md "The simulated
 * gateway"): what a handset received from the caller's organisation at the simulated gateway, one-time codes in full,
 * so demos and tests can sign in as a customer would. It exists only while the SMS rail is the simulator (its port
 * offers the inspection) and never under NODE_ENV=production: otherwise 404 not_found, as for a path that does not
 * exist. Needs scope admin and an admin user (ability sms.manage).
 */
export async function handsetMessages(ctx: Context, phone: string): Promise<HandsetMessage[]> {
  const inspect = ctx.app.sms?.gateway.handset?.bind(ctx.app.sms.gateway);
  if (!inspect || ctx.app.config.nodeEnv === 'production') throw notFound('SMS simulator');
  const p = ctx.principal!;
  requireAbility(p, 'sms.manage');
  const n = normalisePhone(phone);
  if (!n) throw new ValidationError([{ field: 'phone', message: 'a Kenyan mobile number (07…, 01…, +254…)' }]);
  // The gateway account is the organisation's code (gateway/deliver.ts): one organisation never sees another's.
  return inspect(p.tenant.code.toLowerCase(), n);
}
