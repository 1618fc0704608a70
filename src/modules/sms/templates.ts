import { z } from 'zod';
import { requireAbility } from '../../auth/principal.ts';
import type { Context } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { ValidationError } from '../../lib/problem.ts';
import { parseInput } from '../../lib/validate.ts';
import { recordAudit } from '../audit/audit.service.ts';

/**
 * Message templates per organisation (docs/sms.md "SMS"): `{{name}}` placeholders filled from variables. The service's
 * own messages use the codes otp, ipf_sign, receipt, policy_activated and renewal_due (seeded, src/seed/sms-data.ts);
 * an organisation may change the wording of those without a one-time code or add its own.
 */
/**
 * Templates that carry the service's one-time codes (client-area sign-in, premium-finance signing): only the service
 * sends them, with the code masked in the record (docs/sms.md "One-time codes"). Sent by staff they would be a
 * convincing fake code from the organisation's sender ID, stored unmasked; saved, they would replace what the
 * service sends.
 */
export const SERVICE_CODE_TEMPLATES: readonly string[] = ['otp', 'ipf_sign'];
export const RESERVED_TEMPLATE = "is reserved for the service's one-time codes";
export const isServiceCodeTemplate = (code: string) => SERVICE_CODE_TEMPLATES.includes(code.trim().toLowerCase());

const PLACEHOLDER = /\{\{\s*([a-z][a-z0-9_]*)\s*\}\}/gi;
const CODE = /^[a-z][a-z0-9_]{0,39}$/;

/** The placeholders a template uses, in order of first use. */
export function placeholders(body: string): string[] {
  return [...new Set([...body.matchAll(PLACEHOLDER)].map((m) => m[1]))];
}

/** Fills every placeholder; a missing variable is a 422 on `variables.<name>` (never an SMS with a hole in it). */
export function render(body: string, vars: Record<string, unknown>, field = 'variables'): string {
  const missing = placeholders(body).filter((k) => vars[k] == null || vars[k] === '');
  if (missing.length)
    throw new ValidationError(
      missing.map((k) => ({ field: `${field}.${k}`, code: 'required', message: 'required by the template' })),
    );
  return body.replace(PLACEHOLDER, (_m, k: string) => String(vars[k]));
}

/** The organisation's active template `code`, or a 422 on `template`. */
export async function activeTemplate(tx: Tx, code: string) {
  const t = await tx.smsTemplate.findFirst({ where: { code, active: true } });
  if (!t) throw new ValidationError([{ field: 'template', message: `no active template '${code}'` }]);
  return t;
}

export function listTemplates(ctx: Context) {
  return ctx.tx((tx) => tx.smsTemplate.findMany({ orderBy: { code: 'asc' } }));
}

const saveSchema = z
  .object({
    code: z.string().trim().regex(CODE, 'lower case letters, digits and _ (at most 40), starting with a letter'),
    body: z.string().trim().min(1).max(918),
    active: z.boolean().nullish(),
  })
  .strict();

/** Creates or replaces template `code` (ability sms.manage). */
export async function saveTemplate(ctx: Context, input: unknown) {
  const p = ctx.principal!;
  requireAbility(p, 'sms.manage');
  const d = parseInput(saveSchema, input);
  if (isServiceCodeTemplate(d.code)) throw new ValidationError([{ field: 'code', message: RESERVED_TEMPLATE }]);
  return ctx.tx(async (tx) => {
    const data = { body: d.body, active: d.active ?? true };
    const row = await tx.smsTemplate.upsert({
      where: { tenantId_code: { tenantId: p.tenant.id, code: d.code } },
      create: { tenantId: p.tenant.id, code: d.code, ...data },
      update: data,
    });
    await recordAudit(ctx, tx, p.tenant.id, {
      action: 'sms.template_saved',
      entityType: 'sms_template',
      entityId: d.code,
      changes: { code: d.code, ...data },
    });
    return row;
  });
}
