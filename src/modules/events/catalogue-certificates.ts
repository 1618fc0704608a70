import { z } from 'zod';

/** Payload schemas of the certificate events (docs/certificates.md), listed in catalogue.ts. */

const certificateBase = {
  certificate_uuid: z.string(),
  policy_no: z.string(),
  policy_uuid: z.string(),
  client_no: z.string(),
  registration: z.string(),
  stage: z.number().int().describe('1-based stage of an instalment plan (1 of 1 otherwise)'),
  stage_count: z.number().int(),
};

export const certificateIssued = z
  .object({
    ...certificateBase,
    certificate_no: z.string(),
    certificate_class: z.enum(['A', 'B', 'C', 'D']),
    cover_code: z.number().int().describe('100 COMP, 200 TPO, 300 TPFT'),
    start_date: z.string().describe('Y-m-d'),
    end_date: z.string().describe('Y-m-d'),
    registry_ref: z.string(),
    issued_at: z.string().describe('ISO 8601 with offset'),
  })
  .strict();

export const certificateFailed = z
  .object({
    ...certificateBase,
    error_code: z.string().describe('Registry error code (ER005 double insurance, ER006 no stock …) or our own'),
    message: z.string(),
    attempts: z.number().int(),
    final: z.boolean().describe('True when no automatic retry follows (a manual issue can still retry)'),
  })
  .strict();

export const certificateCancelled = z
  .object({
    ...certificateBase,
    certificate_no: z.string(),
    reason_id: z.number().int().describe('Registry cancellation reason id'),
    cancelled_at: z.string().describe('ISO 8601 with offset'),
  })
  .strict();
