import { AdvanceSandboxClockDocument, SandboxClockDocument } from '../generated/operations.ts';
import { sandboxClockToRest } from '../mappers/sandbox.ts';
import { type AnyRoute, bodyOf, route } from '../route.ts';
import { bodyObject } from '../schemas/inputs.ts';
import { advanceSandboxClockBody, sandboxClockResponse } from '../schemas/sandbox.ts';

const common = { serviceOnly: true, tag: 'Sandbox' };

/** A sandbox organisation's clock (docs/operations.md "Sandbox clock"); 403 sandbox_only for a live organisation. */
export const sandboxRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'getSandboxClock',
    method: 'GET',
    path: '/sandbox/clock',
    summary: "The sandbox organisation's clock",
    description:
      "Where the organisation's own clock stands (now and business day), whether an advance is running, and the last " +
      'advance. Every time-based rule of a sandbox organisation follows this clock: instalment due dates, lapse and ' +
      'not-taken-up windows, renewal notices, claim service levels, loan reminders and defaults, one-time-code and ' +
      'preview expiry. A live organisation has no such clock: 403 sandbox_only.',
    scopes: ['read'],
    idempotent: false,
    operation: SandboxClockDocument,
    toVariables: () => ({}),
    toResponse: (d) => ({ status: 200, body: { data: sandboxClockToRest(d.sandboxClock) } }),
    response: { status: 200, description: 'The clock', schema: sandboxClockResponse },
    errors: ['sandbox_only'],
  }),
  route({
    ...common,
    operationId: 'advanceSandboxClock',
    method: 'POST',
    path: '/sandbox/clock/advance',
    summary: "Advance the sandbox organisation's clock",
    description:
      'Moves the clock forward to `to` (an instant) or by `days` (one of the two), at least a minute and at most 731 days ' +
      "on; it never goes back. Answers 202 at once with status `advancing`: each day's daily jobs (policy lifecycle, claim " +
      'service levels, prospect follow-ups, premium finance) then run on the organisation clock, in order, with their ' +
      'events and webhooks, and `sandbox.clock_ready` follows when the clock stands at the target (poll GET ' +
      '/sandbox/clock or take the webhook). One advance at a time: 409 invalid_state while one runs. Needs scope admin ' +
      'and an admin user (403 actor_forbidden otherwise); 403 sandbox_only for a live organisation.',
    scopes: ['admin'],
    idempotent: true,
    operation: AdvanceSandboxClockDocument,
    requestBody: bodyObject(advanceSandboxClockBody),
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, advanceSandboxClockBody);
      return { to: b.to, days: b.days };
    },
    toResponse: (d) => ({ status: 202, body: { data: sandboxClockToRest(d.advanceSandboxClock) } }),
    response: { status: 202, description: 'Advancing', schema: sandboxClockResponse },
    errors: ['validation_failed', 'invalid_state', 'actor_forbidden', 'sandbox_only'],
  }),
];
