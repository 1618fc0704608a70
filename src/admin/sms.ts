import { smsService } from '../modules/sms/sms.service.ts';
import { type Command, type CommandGroup, int, lines, required, str, type Values, ORG } from './command.ts';
import type { Runtime } from './runtime.ts';

async function topUp(rt: Runtime, v: Values) {
  const ctx = await rt.orgContext(required(v, 'org'));
  const units = int(v, 'units', { required: true });
  const balance = await smsService.topUp(ctx, { units, reference: str(v, 'reference') });
  const json = { organisation: ctx.principal!.tenant.code, units, balance_units: balance.balanceUnits };
  return { json, text: lines(json) };
}

async function balance(rt: Runtime, v: Values) {
  const ctx = await rt.orgContext(required(v, 'org'));
  const b = await smsService.balance(ctx);
  const json = { organisation: ctx.principal!.tenant.code, balance_units: b.balanceUnits };
  return { json, text: lines(json) };
}

const commands: Command[] = [
  {
    name: 'top-up',
    summary: "add units bought from the SMS provider to an organisation's balance",
    options: {
      org: ORG,
      units: { type: 'string', arg: '<n>', description: 'units (one per segment per recipient)', required: true },
      reference: { type: 'string', arg: '<ref>', description: "the provider's receipt or order", required: true },
    },
    run: topUp,
  },
  { name: 'balance', summary: "an organisation's SMS balance", options: { org: ORG }, run: balance },
];

export const sms: CommandGroup = { name: 'sms', summary: 'SMS balance', commands };
