import { z } from 'zod';
import { normalisePhone, normaliseRegNo } from '../../../lib/identifiers.ts';
import { fromShillings, MAX_MINOR, MAX_SHILLINGS } from '../../../lib/money.ts';
import { dateTime, normalised, optionalText, requiredText, ymd } from '../../../lib/validate.ts';
import { CLAIM_RULES } from '../claim-state.ts';

/** A first notice of loss as registration reads it: fields, normalisation and messages. */

const text = requiredText;
const phone = normalised(normalisePhone, 'not a Kenyan mobile number (07…, 01…, +254…)');
/** Whole shillings in, cents out. */
export const shillings = (max = MAX_SHILLINGS) =>
  z
    .number()
    .int('whole shillings')
    .min(0)
    .max(max)
    .transform((v) => fromShillings(v));

/** Third parties and witnesses are kept as the wire shows them (snake_case JSON), whichever transport sent them. */
const thirdParty = z
  .object({
    name: text(200),
    phone,
    idNo: optionalText(20),
    registration: optionalText(20),
    insurer: optionalText(200),
    injured: z.boolean().nullish(),
    damage: optionalText(1000),
  })
  .strict()
  .transform(({ idNo, injured, ...rest }) => ({ ...rest, id_no: idNo, injured: injured ?? null }));
const witness = z.object({ name: text(200), phone, statement: optionalText(2000) }).strict();

export const registerSchema = z
  .object({
    policyId: z.string().min(1, 'required'),
    registration: normalised(normaliseRegNo, 'not a vehicle registration (e.g. KDA 123A)'),
    /** Medical, travel and standard policies: the insured person, traveller or item (the policy's insured[].id). */
    insuredId: z.number().int().positive().nullish(),
    cause: text(50),
    lossDate: ymd(),
    lossTime: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM, 24-hour, Nairobi time')
      .nullish()
      .transform((v) => v ?? null),
    lossPlace: text(300),
    description: text(5000),
    thirdParties: z.array(thirdParty).max(20).nullish(),
    witnesses: z.array(witness).max(20).nullish(),
    policeAbstractNo: optionalText(50),
    antiTheftDevice: z.boolean().nullish(),
    reporterName: optionalText(200),
    reporterPhone: phone,
    reporterRelationship: optionalText(50),
    channel: z.enum(CLAIM_RULES.channels).nullish(),
    reportedAt: dateTime()
      .nullish()
      .transform((v) => v ?? null),
    estimatedLoss: shillings().nullish(),
    /** Cents, for the client area (cents only); `estimatedLoss` (whole shillings) wins when both are sent. */
    estimatedLossMinor: z
      .union([z.bigint(), z.number().int()])
      .transform((v) => BigInt(v))
      .refine((v) => v >= 0n && v <= BigInt(MAX_MINOR), `cents from 0 to ${MAX_MINOR}`)
      .nullish(),
    assigneeId: z.number().int().positive().nullish(),
  })
  .transform(({ estimatedLossMinor, ...d }) => ({
    ...d,
    estimatedLoss: d.estimatedLoss ?? estimatedLossMinor ?? null,
  }));

export type RegisterInput = z.infer<typeof registerSchema>;
