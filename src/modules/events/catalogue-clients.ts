import { z } from 'zod';

/** Payload schemas of the client events (docs/motor-and-clients.md "Phone changes"), listed in catalogue.ts. */

const clientPhoneChanged = z
  .object({
    client_no: z.string(),
    previous_phone: z.string().describe('The phone before the change, 2547XXXXXXXX: it is sent the notice'),
    changed_by: z
      .enum(['client', 'organisation'])
      .describe('client: the client in the client area, signed in by a one-time code; organisation: anyone else'),
    changed_at: z.string().describe('ISO 8601 with offset, on the organisation clock'),
    codes_held_until: z
      .string()
      .nullable()
      .describe('Until when one-time codes still go to the phone trusted before the change (null: not held)'),
  })
  .strict();

export const CLIENT_EVENTS = {
  'client.phone_changed': {
    description:
      "A client's phone was changed; the previous phone is sent the phone_changed notice. A change by the organisation holds the new phone for one-time codes.",
    data: clientPhoneChanged,
  },
} as const;
