import { keepEvents } from '../../db/event-bus.ts';
import type { Context } from '../../context.ts';
import { builder } from '../../graphql/builder.ts';
import { EVENTS_TOPIC, eventService } from '../events/event.service.ts';

interface ClaimMovedLive {
  id: string;
  name: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

const str = (e: ClaimMovedLive, k: string) => e.data[k] as string;

const ClaimMovedEventRef = builder.objectRef<ClaimMovedLive>('ClaimMovedEvent').implement({
  description: 'One move of a claim (event claim.moved), as delivered to webhooks.',
  fields: (t) => ({
    eventId: t.exposeID('id', { description: 'Event UUID (the webhook Service-Delivery id)' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the event was recorded.' }),
    data: t.field({ type: 'JSON', description: 'The event data, as in the catalogue', resolve: (e) => e.data }),
    claimNo: t.string({
      description: 'The claim number, CLM-YYYY-NNNNNN (data.claim_no).',
      resolve: (e) => str(e, 'claim_no'),
    }),
    claimUuid: t.string({ description: 'The claim uuid (data.claim_uuid).', resolve: (e) => str(e, 'claim_uuid') }),
    policyNo: t.string({ description: 'The policy number (data.policy_no).', resolve: (e) => str(e, 'policy_no') }),
    policyUuid: t.string({ description: 'The policy uuid (data.policy_uuid).', resolve: (e) => str(e, 'policy_uuid') }),
    from: t.string({ description: 'The status left (a ClaimStatus value).', resolve: (e) => str(e, 'from') }),
    to: t.string({ description: 'The status entered (a ClaimStatus value).', resolve: (e) => str(e, 'to') }),
    reason: t.string({
      nullable: true,
      description: 'Why, as given with the move; null when none.',
      resolve: (e) => (e.data.reason as string | null) ?? null,
    }),
    movedAt: t.string({
      description: 'When the claim moved: ISO 8601 with the Nairobi offset (+03:00).',
      resolve: (e) => str(e, 'moved_at'),
    }),
  }),
});

/**
 * claim.moved from the outbox bus (LISTEN/NOTIFY: any process's commits arrive), optionally only one claim's or one
 * policy's, kept only when the subscriber may see the claim (eventVisibleTo by claim_uuid). The WebSocket session
 * re-checks the token while the subscription lives (src/graphql/websocket-session.ts).
 */
function claimMoves(_root: unknown, args: { claimUuid?: string | null; policyUuid?: string | null }, ctx: Context) {
  const p = ctx.principal!;
  const source = ctx.app.events.subscribe<{ id: string; name: string }>(EVENTS_TOPIC, p.tenant.id);
  return keepEvents(source, async (m) => {
    if (m.name !== 'claim.moved') return undefined;
    const ev = await eventService.visibleEvent(ctx, m.id);
    if (!ev) return undefined;
    if (args.claimUuid && ev.data.claim_uuid !== args.claimUuid) return undefined;
    if (args.policyUuid && ev.data.policy_uuid !== args.policyUuid) return undefined;
    return ev;
  });
}

builder.subscriptionField('claimMoved', (t) =>
  t.field({
    type: ClaimMovedEventRef,
    authScopes: { read: true },
    description: 'Claims as they move through their states (claim.moved), limited to claims the caller may see.',
    args: {
      claimUuid: t.arg.string({ description: 'Only this claim' }),
      policyUuid: t.arg.string({ description: "Only this policy's claims" }),
    },
    subscribe: claimMoves as never,
    resolve: (e) => e as ClaimMovedLive,
  }),
);
