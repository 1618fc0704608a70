import { z } from 'zod';
import { dateTimeIn, whole } from './inputs.ts';
import { date, dataOf, int, nullable, obj, str, timestamp, describe, type Schema, oneOf } from './builders.ts';

const status: Schema = oneOf(['ready', 'advancing']);

/** Either `to` or `days` (both or neither: the service's 422 on `to`); how far it may go is the service's rule. */
export const advanceSandboxClockBody = obj(
  {
    to: dateTimeIn('The instant to move the clock to; or give days').nullish(),
    days: whole(z.int()).nullish().describe("Whole days on from the clock's now; or give to"),
  },
  [],
);

export const sandboxClockResponse = dataOf(
  obj({
    now: describe(timestamp(), "The organisation's now"),
    today: describe(date(), "The organisation's business day (Nairobi), Y-m-d"),
    status: describe(status, 'ready, or advancing while an advance runs its days'),
    advancing_to: nullable(timestamp()),
    ahead_seconds: int('How far ahead of the real clock it runs, in whole seconds'),
    last_advance: nullable(
      obj({
        uuid: str(),
        status,
        from: timestamp(),
        to: timestamp(),
        last_day: nullable(str("The last day whose daily jobs have run on the organisation's clock (Y-m-d)")),
        days_run: int(),
        requested_by: nullable(str()),
        requested_at: timestamp(),
        finished_at: nullable(timestamp()),
      }),
    ),
  }),
);
