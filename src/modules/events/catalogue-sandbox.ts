import { z } from 'zod';

/** Payload schemas of the sandbox events (docs/operations.md "Sandbox clock"), listed in catalogue.ts. */

const sandboxClockReady = z
  .object({
    run_uuid: z.string().describe('The advance'),
    from: z.string().describe('ISO 8601 with offset: where the clock stood when the advance was asked'),
    to: z.string().describe('ISO 8601 with offset: where it stands now (and runs on from)'),
    days_run: z.number().int().describe("Days whose daily jobs ran on the organisation's clock"),
    counts: z
      .record(z.string(), z.record(z.string(), z.number().int()))
      .describe('What the daily jobs did over the advance, per job (policies, claims, prospects, premium_finance)'),
  })
  .strict();

export const SANDBOX_EVENTS = {
  'sandbox.clock_ready': {
    description:
      "A sandbox organisation's clock finished advancing: each day's daily jobs ran on its clock (staff only; never for a live organisation).",
    data: sandboxClockReady,
  },
} as const;
