import { useEffect, useRef, useState } from 'preact/hooks';
import { gql, liveClient, type Session } from './api.ts';
import { todayNairobi } from './format.ts';
import { type Endpoint, FIGURES, type FeedItem, feedItem, type Figures, LIVE, WEBHOOKS } from './queries.ts';

const FEED_LENGTH = 60;
/** A quiet refresh of the figures, besides the one each live event asks for. */
const REFRESH_MS = 30_000;

export interface Board {
  figures: Figures | null;
  /** Endpoints, or why this key cannot read them. */
  webhooks: Endpoint[] | string | null;
  feed: FeedItem[];
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
    live: 'connecting',
    error: null,
  });
  const seen = useRef<Map<string, string> | null>(null);
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  const update = (patch: (b: Board) => Partial<Board>) => setBoard((b) => ({ ...b, ...patch(b) }));
  const push = (items: FeedItem[]) =>
    items.length && update((b) => ({ feed: [...items.reverse(), ...b.feed].slice(0, FEED_LENGTH) }));

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
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    const client = liveClient(session, {
      connected: () => update(() => ({ live: 'live' })),
      closed: (code, reason, final) => {
        update(() => ({ live: final ? 'closed' : 'reconnecting' }));
        if (final) signOut(reason || `The server closed the live connection (${code})`);
      },
    });
    const stops = (Object.keys(LIVE) as (keyof typeof LIVE)[]).map((kind) =>
      client.subscribe<Record<string, Record<string, unknown>>>(
        { query: LIVE[kind] },
        {
          next: (r) => {
            const row = r.data && Object.values(r.data)[0];
            if (row) push([feedItem(kind, row)]);
            soon();
          },
          error: (e) => update(() => ({ error: liveError(e) })),
          complete: () => undefined,
        },
      ),
    );
    return () => {
      clearInterval(timer);
      if (pending.current) clearTimeout(pending.current);
      stops.forEach((stop) => stop());
      void client.dispose();
    };
  }, [session]);

  return board;
}
