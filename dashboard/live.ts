import { useEffect, useRef, useState } from 'preact/hooks';
import { gql, liveClient, type Session } from './api.ts';
import { todayNairobi } from './format.ts';
import {
  type Endpoint,
  eventItem,
  FEED_EVENTS,
  type FeedItem,
  FIGURES,
  type Figures,
  HISTORY,
  LIVE_FEED,
  type ServiceEvent,
  WEBHOOKS,
} from './queries.ts';

const FEED_LENGTH = 60;
/** A quiet refresh of the figures, besides the one each live event asks for. */
const REFRESH_MS = 30_000;

export interface Board {
  figures: Figures | null;
  /** Endpoints, or why this key cannot read them. */
  webhooks: Endpoint[] | string | null;
  feed: FeedItem[];
  /** Whether today's history has been read (until then the feed says it is loading). */
  history: boolean;
  live: 'connecting' | 'live' | 'reconnecting' | 'closed';
  error: string | null;
}

/** New and changed webhook deliveries since the last look, as feed lines (none on the first look). */
function deliveryChanges(endpoints: Endpoint[], seen: Map<string, string> | null): FeedItem[] {
  const items: FeedItem[] = [];
  for (const e of endpoints)
    for (const d of e.deliveries) {
      if (seen && seen.get(d.id) !== d.status && d.status !== 'pending') {
        const at = d.deliveredAt ?? d.failedAt ?? d.createdAt;
        const host = e.url.replace(/^https?:\/\//, '').split('/')[0];
        const text = `Webhook ${d.event.name} → ${host}: ${d.status.replace('_', ' ')} (attempt ${d.attemptCount})`;
        items.push({ id: `${d.id}:${d.status}:${d.attemptCount}`, kind: 'webhook', at, text });
      }
    }
  return items;
}

/**
 * The feed after new lines arrive, from the history or live: one line per id (an event read from the history and
 * heard live is shown once), newest first, at most FEED_LENGTH.
 */
export function mergeFeed(feed: FeedItem[], items: FeedItem[]): FeedItem[] {
  const byId = new Map<string, FeedItem>();
  for (const i of [...items, ...feed]) if (!byId.has(i.id)) byId.set(i.id, i);
  return [...byId.values()]
    .map((item, n) => ({ item, n, t: Date.parse(item.at) || 0 }))
    .sort((a, b) => b.t - a.t || a.n - b.n)
    .map((x) => x.item)
    .slice(0, FEED_LENGTH);
}

/** A subscription's failure as a line: graphql-ws hands GraphQL errors as an array, a socket's as an event. */
function liveError(e: unknown): string {
  if (Array.isArray(e)) return e.map((x: { message?: string }) => x.message ?? 'error').join('; ');
  return e instanceof Error ? e.message : 'The live feed failed';
}

/**
 * The dashboard's state: the figures (one GraphQL query), webhook health (a second, for keys that may read it), and
 * the live feed from the subscriptions; every event refreshes the figures shortly after, so they move with the feed.
 */
export function useBoard(session: Session, signOut: (why: string) => void): Board {
  const [board, setBoard] = useState<Board>({
    figures: null,
    webhooks: null,
    feed: [],
    history: false,
    live: 'connecting',
    error: null,
  });
  const seen = useRef<Map<string, string> | null>(null);
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  const update = (patch: (b: Board) => Partial<Board>) => setBoard((b) => ({ ...b, ...patch(b) }));
  const push = (items: FeedItem[]) => items.length && update((b) => ({ feed: mergeFeed(b.feed, items) }));

  /** Today's events so far (Nairobi), newest first: on load and again on every (re)connect, to fill any gap. */
  const history = async () => {
    try {
      const r = await gql<{ events: { edges: { node: ServiceEvent }[] } }>(session, HISTORY, {
        since: `${todayNairobi()}T00:00:00+03:00`,
        types: FEED_EVENTS,
        first: FEED_LENGTH,
      });
      if (!r.data) return update(() => ({ error: r.errors?.map((e) => e.message).join('; ') ?? 'No answer' }));
      const items = r.data.events.edges.map((e) => eventItem(e.node)).filter((i): i is FeedItem => !!i);
      update((b) => ({ feed: mergeFeed(b.feed, items), history: true }));
    } catch (e) {
      update(() => ({ error: (e as Error).message }));
    }
  };

  const refresh = async () => {
    try {
      const f = await gql<Figures>(session, FIGURES, { date: todayNairobi() });
      if (!f.data) return update(() => ({ error: f.errors?.map((e) => e.message).join('; ') ?? 'No answer' }));
      update(() => ({ figures: f.data!, error: null }));
      const { scopes, actor } = f.data.me;
      if (!scopes.includes('webhooks') || actor?.ownRecordsOnly)
        return update(() => ({ webhooks: 'Webhook health needs a staff key with the webhooks scope.' }));
      const w = await gql<{ webhookEndpoints: Endpoint[] }>(session, WEBHOOKS);
      if (!w.data?.webhookEndpoints)
        return update(() => ({ webhooks: w.errors?.[0]?.message ?? 'Not available to this key' }));
      const endpoints = w.data.webhookEndpoints;
      push(deliveryChanges(endpoints, seen.current));
      seen.current = new Map(endpoints.flatMap((e) => e.deliveries.map((d) => [d.id, d.status] as const)));
      update(() => ({ webhooks: endpoints }));
    } catch (e) {
      update(() => ({ error: (e as Error).message }));
    }
  };
  const soon = () => {
    if (pending.current) return;
    pending.current = setTimeout(() => {
      pending.current = null;
      void refresh();
    }, 400);
  };

  useEffect(() => {
    void refresh();
    void history();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    let connects = 0;
    const client = liveClient(session, {
      connected: () => {
        update(() => ({ live: 'live' }));
        // A reconnect may have missed events: read the day again (lines already shown are not repeated).
        if (connects++ > 0) void history();
      },
      closed: (code, reason, final) => {
        update(() => ({ live: final ? 'closed' : 'reconnecting' }));
        if (final) signOut(reason || `The server closed the live connection (${code})`);
      },
    });
    const stops = [
      client.subscribe<{ events: ServiceEvent }>(
        { query: LIVE_FEED, variables: { names: FEED_EVENTS } },
        {
          next: (r) => {
            const item = r.data?.events && eventItem(r.data.events);
            if (item) push([item]);
            soon();
          },
          error: (e) => update(() => ({ error: liveError(e) })),
          complete: () => undefined,
        },
      ),
    ];
    return () => {
      clearInterval(timer);
      if (pending.current) clearTimeout(pending.current);
      stops.forEach((stop) => stop());
      void client.dispose();
    };
  }, [session]);

  return board;
}
