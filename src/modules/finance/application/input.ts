import { z } from 'zod';
import { normaliseIdNo, normaliseKraPin } from '../../../lib/identifiers.ts';
import { optionalText } from '../../../lib/validate.ts';
import { IPF_RULES } from '../ipf-state.ts';

/** An application as creation reads it (docs/premium-finance.md "Premium finance: applications"): fields, normalisation, messages. */

export const INCOME_BANDS = Object.keys(IPF_RULES.incomeBands);

/** A required identifier put through its normaliser: absent or blank is `required`, anything it refuses `message`. */
const identifier = (fn: (s: string) => string | null, message: string) =>
  z
    .string({ error: 'required' })
    .nullish()
    .transform((v, c) => {
      if (v == null || v.trim() === '') {
        c.addIssue({ code: 'custom', message: 'required' });
        return z.NEVER;
      }
      const n = fn(v);
      if (!n) c.addIssue({ code: 'custom', message });
      return n ?? '';
    });

export const createSchema = z
  .object({
    policyUuid: optionalText(64),
    policyNo: optionalText(64),
    lenderId: z.number({ error: 'required' }).int().positive(),
    tenorMonths: z
      .number({ error: 'required' })
      .int('whole months')
      .min(IPF_RULES.minTenorMonths, `${IPF_RULES.minTenorMonths} to ${IPF_RULES.maxTenorMonths} months`)
      .max(IPF_RULES.maxTenorMonths, `${IPF_RULES.minTenorMonths} to ${IPF_RULES.maxTenorMonths} months`),
    idNumber: identifier(normaliseIdNo, 'a national ID number (6–14 digits) or passport number'),
    kraPin: identifier(normaliseKraPin, 'a KRA PIN: A or P, 9 digits and a letter (e.g. A004416331M)'),
    incomeBand: z
      .string({ error: 'required' })
      .nullish()
      .refine((v) => v != null && INCOME_BANDS.includes(v), `one of ${INCOME_BANDS.join(', ')}`)
      .transform((v) => v as string),
    consent: z
      .boolean({ error: 'required' })
      .nullish()
      .refine((v) => v === true, 'the applicant must consent to the credit check and the agreement (true)')
      // A pipe, not a plain optional: zod checks an absent key of an optional schema not at all.
      .transform((v) => v === true),
    submit: z.boolean().nullish(),
  })
  .superRefine((d, c) => {
    if (!d.policyUuid && !d.policyNo)
      c.addIssue({ code: 'custom', path: ['policyUuid'], message: 'required, or the policy number' });
  });

export type CreateInput = z.infer<typeof createSchema>;
