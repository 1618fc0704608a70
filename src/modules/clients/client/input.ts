import { now as clockNow } from '../../../lib/clock.ts';
import { z } from 'zod';
import { normaliseIdNo, normaliseKraPin, normalisePhone } from '../../../lib/identifiers.ts';
import { normalised, optionalText, personNameText, ymd } from '../../../lib/validate.ts';

/** A client as written by create and update: the fields, their normalisation and messages. */

const fields = {
  type: z.enum(['individual', 'corporate']).nullish(),
  name: personNameText(),
  phone: z.string().transform((v, c) => {
    const n = normalisePhone(v);
    if (!n) c.addIssue({ code: 'custom', message: 'not a Kenyan mobile number (07…, 01…, +254…)' });
    return n ?? '';
  }),
  email: z.string().trim().toLowerCase().email('not an email address').max(200).nullish(),
  idNo: normalised(normaliseIdNo, 'national ID (6–14 digits) or passport number (6–12 letters and digits)'),
  kraPin: normalised(normaliseKraPin, 'KRA PIN is A or P, 9 digits and a letter (e.g. A004416331M)'),
  dateOfBirth: ymd()
    .refine((d) => Date.parse(`${d}T00:00:00Z`) < clockNow().getTime(), 'a past date')
    .nullish(),
  physicalAddress: optionalText(500),
  branchId: z.number().int().positive().nullish(),
  riskManagerId: z.number().int().positive().nullish(),
  salesPersonId: z.number().int().positive().nullish(),
  businessSourceId: z.number().int().positive().nullish(),
  prospectTypeId: z.number().int().positive().nullish(),
  sector: optionalText(100),
  altName: optionalText(200),
  altPhone: normalised(normalisePhone, 'not a Kenyan mobile number'),
  altEmail: z.string().trim().toLowerCase().email('not an email address').max(200).nullish(),
  force: z.boolean().nullish(),
};
export const createSchema = z.object(fields);
/** The contact and identity fields every CRM record normalises alike (clients and prospects). */
export const contactFields = { phone: fields.phone, email: fields.email, idNo: fields.idNo, kraPin: fields.kraPin };
export const updateSchema = z.object({ ...fields, name: fields.name.nullish(), phone: fields.phone.nullish() });

/** A date of birth for the column: undefined (not sent) leaves it alone in an update, null clears it. */
export const toDate = (d: string | null | undefined) =>
  d ? new Date(`${d}T00:00:00Z`) : d === null ? null : undefined;
