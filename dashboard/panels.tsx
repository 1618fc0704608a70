import type { ComponentChildren } from 'preact';
import { kes, nairobiTime, percent } from './format.ts';
import type { Endpoint, FeedItem, Figures, Target } from './queries.ts';

export function Card({ title, children, wide }: { title: string; children: ComponentChildren; wide?: boolean }) {
  return (
    <section class={wide ? 'card wide' : 'card'}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

export function Collections({ c, open }: { c: Figures['collectionsSummary']; open: (t: Target) => void }) {
  const receipts = () => open({ kind: 'receipts-today' });
  return (
    <>
      <div class="figures">
        <Figure label="Receipts" value={String(c.count)} id="collections-count" onOpen={receipts} />
        <Figure label="Collected" value={kes(c.amount.amount)} id="collections-amount" onOpen={receipts} />
        <Figure label="STK success" value={percent(c.successRate)} id="success-rate" />
      </div>
      <table data-testid="prompt-outcomes">
        <thead>
          <tr>
            <th>Prompt outcome</th>
            <th>Result code</th>
            <th class="n">Prompts</th>
          </tr>
        </thead>
        <tbody>
          {c.prompts.length === 0 && <Empty cols={3} text="No STK prompts today" />}
          {c.prompts.map((p) => (
            <tr key={`${p.status}:${p.resultCode}`}>
              <td>{p.status}</td>
              <td>{p.resultCode ?? '–'}</td>
              <td class="n">{p.count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function Figure({ label, value, id, onOpen }: { label: string; value: string; id: string; onOpen?: () => void }) {
  const body = (
    <>
      <span class="value" data-testid={id}>
        {value}
      </span>
      <span class="label">{label}</span>
    </>
  );
  if (!onOpen) return <div class="figure">{body}</div>;
  return (
    <button type="button" class="figure tile" onClick={onOpen} title={`${label}: open today's receipts`}>
      {body}
    </button>
  );
}

const Empty = ({ cols, text }: { cols: number; text: string }) => (
  <tr>
    <td colSpan={cols} class="empty">
      {text}
    </td>
  </tr>
);

export function StatusTable({
  rows,
  id,
  sla,
  open,
}: {
  rows: Figures['claimCounts'] | Figures['policyCounts'];
  id: string;
  sla?: boolean;
  /** Opens the records in one state. */
  open: (status: string) => void;
}) {
  return (
    <table data-testid={id}>
      <thead>
        <tr>
          <th>State</th>
          <th class="n">Count</th>
          {sla && <th class="n">SLA breached</th>}
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && <Empty cols={sla ? 3 : 2} text="None" />}
        {rows.map((r) => (
          <tr key={r.status} data-status={r.status}>
            <td>
              <button type="button" class="link" onClick={() => open(r.status)}>
                {r.status.replace(/_/g, ' ')}
              </button>
            </td>
            <td class="n">{r.count}</td>
            {sla && (
              <td class={'slaBreached' in r && r.slaBreached ? 'n alert' : 'n'}>
                {'slaBreached' in r ? r.slaBreached : ''}
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Per endpoint, from its latest 100 deliveries: success rate, last failure, retries pending. */
export function WebhookHealth({ webhooks }: { webhooks: Endpoint[] | string | null }) {
  if (webhooks == null) return <p class="muted">Loading…</p>;
  if (typeof webhooks === 'string')
    return (
      <p class="muted" data-testid="webhooks-unavailable">
        {webhooks}
      </p>
    );
  if (webhooks.length === 0) return <p class="muted">No webhook endpoints.</p>;
  return (
    <table data-testid="webhooks">
      <thead>
        <tr>
          <th>Endpoint</th>
          <th class="n">Success</th>
          <th>Last failure</th>
          <th class="n">Retries pending</th>
        </tr>
      </thead>
      <tbody>
        {webhooks.map((e) => {
          const ds = e.deliveries;
          const ok = ds.filter((d) => d.status === 'delivered').length;
          const failed = ds.filter((d) => d.status === 'failed');
          const retrying = ds.filter((d) => d.status === 'retry_scheduled' || d.status === 'pending').length;
          const last = failed
            .map((d) => d.failedAt!)
            .sort()
            .at(-1);
          return (
            <tr key={e.id}>
              <td class="url">
                {e.url}
                {!e.enabled && <span class="tag">disabled</span>}
              </td>
              <td class="n">{percent(ok + failed.length ? ok / (ok + failed.length) : null)}</td>
              <td>{last ? nairobiTime(last) : '–'}</td>
              <td class={retrying ? 'n alert' : 'n'}>{retrying}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Today's events (from the history, then live), newest first; a line with a record behind it opens it. */
export function Feed({ items, loaded, open }: { items: FeedItem[]; loaded: boolean; open: (t: Target) => void }) {
  return (
    <ol class="feed" data-testid="feed" data-loaded={loaded ? 'yes' : 'no'}>
      {items.length === 0 && <li class="muted">{loaded ? 'No events yet today. Waiting for events…' : 'Loading…'}</li>}
      {items.map((i) => {
        const line = (
          <>
            <time dateTime={i.at}>{nairobiTime(i.at)}</time>
            <span class={`kind ${i.kind}`}>{i.kind}</span>
            <span class="text">{i.text}</span>
          </>
        );
        const target = i.open;
        return (
          <li key={i.id} data-kind={i.kind} data-event-id={i.id}>
            {target ? (
              <button type="button" class="line" onClick={() => open(target)}>
                {line}
              </button>
            ) : (
              <div class="line">{line}</div>
            )}
          </li>
        );
      })}
    </ol>
  );
}
