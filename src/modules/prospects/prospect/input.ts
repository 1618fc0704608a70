import { z } from 'zod';
import { todayNairobi } from '../../../lib/dates.ts';
import { personNameText, requiredText, ymd } from '../../../lib/validate.ts';
import { contactFields } from '../../clients/client.service.ts';
import { PROSPECT_RULES } from '../prospect-state.ts';

/**
 * A prospect as create and update write it. Phone, email, ID number and PIN go through the clients' own rules
 * (contactFields), so a prospect converts into a client without a second normalisation.
 */

const text = requiredText;

const fields = {
  type: z.enum(PROSPECT_RULES.types).nullish(),
  name: personNameText(),
  phone: contactFields.phone.nullish(),
  email: contactFields.email,
  idNo: contactFields.idNo,
  kraPin: contactFields.kraPin,
  source: z.enum(PROSPECT_RULES.sources).nullish(),
  interests: z
    .array(z.enum(PROSPECT_RULES.interests))
    .max(PROSPECT_RULES.interests.length)
    .transform((v) => [...new Set(v)])
    .nullish(),
  /** Whole shillings (stored as cents). */
  estimatedPremium: z.number().int('whole shillings').min(0).max(10_000_000_000).nullish(),
  assigneeId: z.number().int().positive().nullish(),
  // A follow-up is planned, not recorded: a date already past would only ever be overdue.
  nextFollowUpOn: ymd()
    .refine((d) => d >= todayNairobi(), 'today or a later date')
    .nullish(),
  note: text(2000).nullish(),
  force: z.boolean().nullish(),
};

export const createProspectSchema = z.object(fields);

export const updateProspectSchema = z.object({
  ...fields,
  name: fields.name.nullish(),
  status: z.enum(['new', 'contacted', 'qualified', 'quoted', 'won', 'lost']).nullish(),
  lostReason: z.enum(PROSPECT_RULES.lostReasons).nullish(),
});
export type ProspectPatchInput = z.infer<typeof updateProspectSchema>;

export const noteSchema = z.object({ body: text(2000) });

/** Conversion: link a visible client by number, or create one from the prospect (fields here fill or correct it). */
export const convertSchema = z.object({
  clientNo: z.string().trim().min(1).nullish(),
  force: z.boolean().nullish(),
  phone: z.string().nullish(),
  email: z.string().nullish(),
  idNo: z.string().nullish(),
  kraPin: z.string().nullish(),
  dateOfBirth: z.string().nullish(),
  physicalAddress: z.string().nullish(),
  branchId: z.number().nullish(),
  riskManagerId: z.number().nullish(),
  salesPersonId: z.number().nullish(),
});
export type ConvertInput = z.infer<typeof convertSchema>;

/** Fields an update may clear with an explicit null (the others keep their value when null or absent). */
export const CLEARABLE = [
  'phone',
  'email',
  'idNo',
  'kraPin',
  'source',
  'estimatedPremium',
  'assigneeId',
  'nextFollowUpOn',
] as const;

/** Whether the caller sent a field (absent and undefined mean "leave it"; GraphQL omits, REST maps to undefined). */
export const sent = (raw: unknown, key: string): boolean =>
  !!raw && typeof raw === 'object' && (raw as Record<string, unknown>)[key] !== undefined;
