import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { gql, type Session } from './api.ts';
import { kes, nairobiTime, todayNairobi } from './format.ts';
import {
  CLAIM,
  type ClaimDetail,
  type ClaimRow,
  CLAIMS,
  POLICIES,
  POLICY,
  type PolicyDetail,
  type PolicyRow,
  RECEIPT,
  type ReceiptDetail,
  type ReceiptRow,
  RECEIPTS,
  type Target,
} from './queries.ts';

/** Nairobi date and time of an instant: 2026-05-04 14:03. */
const when = (iso: string) =>
  `${new Date(new Date(iso).getTime() + 3 * 3_600_000).toISOString().slice(0, 10)} ${nairobiTime(iso).slice(0, 5)}`;
const words = (s: string | null | undefined) => (s ?? '–').replace(/_/g, ' ');

type Loaded = { target: Target; data: unknown } | { target: Target; error: string } | null;

/** The record a target names, read with the API's own queries. */
async function load(session: Session, t: Target): Promise<unknown> {
  type Conn<N> = { edges: { node: N }[] };
  const one = async <D,>(query: string, variables: Record<string, unknown> = {}): Promise<D> => {
    const r = await gql<D>(session, query, variables);
    if (!r.data || r.errors?.length) throw new Error(r.errors?.map((e) => e.message).join('; ') ?? 'No answer');
    return r.data;
  };
  const nodes = <N,>(c: Conn<N>) => c.edges.map((e) => e.node);
  switch (t.kind) {
    case 'receipt':
      return (await one<{ receipt: ReceiptDetail }>(RECEIPT, { receiptNo: t.receiptNo })).receipt;
    case 'policy':
      return (await one<{ policy: PolicyDetail }>(POLICY, { uuid: t.uuid })).policy;
    case 'claim':
      return (await one<{ claim: ClaimDetail }>(CLAIM, { uuid: t.uuid })).claim;
    case 'receipts-today': {
      const today = todayNairobi();
      const rows = nodes((await one<{ receipts: Conn<ReceiptRow> }>(RECEIPTS)).receipts);
      return rows.filter((r) => when(r.paidAt).startsWith(today) || when(r.createdAt).startsWith(today));
    }
    case 'policies':
      return nodes((await one<{ policies: Conn<PolicyRow> }>(POLICIES, { status: t.status })).policies);
    case 'claims':
      return nodes((await one<{ claims: Conn<ClaimRow> }>(CLAIMS, { status: [t.status] })).claims);
  }
}

const title = (t: Target): string => {
  switch (t.kind) {
    case 'receipt':
      return `Receipt ${t.receiptNo}`;
    case 'policy':
      return 'Policy';
    case 'claim':
      return 'Claim';
    case 'receipts-today':
      return 'Receipts today';
    case 'policies':
      return `Policies ${words(t.status)}`;
    case 'claims':
      return `Claims ${words(t.status)}`;
  }
};

/**
 * The record behind a tile or a feed line, in a modal dialog over the dashboard: Escape or Close returns to the board
 * and focus to what opened it. Links inside (a policy's receipts and claims, a claim's policy) open in the same
 * dialog; Back returns to the previous record.
 */
export function Detail({ session, target, onClose }: { session: Session; target: Target; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [stack, setStack] = useState<Target[]>([target]);
  const [loaded, setLoaded] = useState<Loaded>(null);
  const current = stack[stack.length - 1];

  useEffect(() => setStack([target]), [target]);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const d = dialog.current!;
    if (!d.open) d.showModal();
    const closed = () => onClose();
    d.addEventListener('close', closed);
    return () => {
      d.removeEventListener('close', closed);
      if (d.open) d.close();
      opener?.focus?.();
    };
  }, []);
  useEffect(() => {
    let live = true;
    setLoaded(null);
    load(session, current).then(
      (data) => live && setLoaded({ target: current, data }),
      (e: Error) => live && setLoaded({ target: current, error: e.message }),
    );
    return () => void (live = false);
  }, [current]);

  const open = (t: Target) => setStack((s) => [...s, t]);
  const ready = loaded && loaded.target === current ? loaded : null;
  return (
    <dialog ref={dialog} class="detail" aria-labelledby="detail-title" data-testid="detail">
      <header>
        {stack.length > 1 && (
          <button type="button" class="ghost" onClick={() => setStack((s) => s.slice(0, -1))}>
            ← Back
          </button>
        )}
        <h2 id="detail-title">{title(current)}</h2>
        <button type="button" class="ghost" onClick={() => dialog.current?.close()} autofocus>
          Close
        </button>
      </header>
      <div class="detail-body" aria-live="polite">
        {!ready && <p class="muted">Loading…</p>}
        {ready && 'error' in ready && (
          <p class="error" role="alert">
            {ready.error}
          </p>
        )}
        {ready && 'data' in ready && <Body target={current} data={ready.data} open={open} />}
      </div>
    </dialog>
  );
}

function Body({ target, data, open }: { target: Target; data: unknown; open: (t: Target) => void }) {
  switch (target.kind) {
    case 'receipt':
      return <Receipt r={data as ReceiptDetail} />;
    case 'policy':
      return <Policy p={data as PolicyDetail} open={open} />;
    case 'claim':
      return <Claim c={data as ClaimDetail} open={open} />;
    case 'receipts-today':
      return (
        <List
          rows={data as ReceiptRow[]}
          empty="No receipts today."
          cols={['Receipt', 'Paid', 'For', 'KES']}
          row={(r) => [
            <Link onClick={() => open({ kind: 'receipt', receiptNo: r.receiptNo })}>{r.receiptNo}</Link>,
            nairobiTime(r.paidAt),
            r.policyNo ?? r.account,
            kes(r.amount.amount),
          ]}
        />
      );
    case 'policies':
      return (
        <List
          rows={data as PolicyRow[]}
          empty="None."
          cols={['Policy', 'Client', 'Start', 'Premium']}
          row={(p) => [
            <Link onClick={() => open({ kind: 'policy', uuid: p.uuid })}>{p.policyNo}</Link>,
            p.client.name,
            p.startDate,
            kes(p.total.amount),
          ]}
        />
      );
    case 'claims':
      return (
        <List
          rows={data as ClaimRow[]}
          empty="None."
          cols={['Claim', 'Client', 'Policy', 'Since']}
          row={(c) => [
            <Link onClick={() => open({ kind: 'claim', uuid: c.uuid })}>{c.claimNo}</Link>,
            c.clientName,
            c.policyNo,
            <span class={c.slaBreached ? 'alert' : ''}>{when(c.statusChangedAt)}</span>,
          ]}
        />
      );
  }
}

const Link = ({ onClick, children }: { onClick: () => void; children: ComponentChildren }) => (
  <button type="button" class="link" onClick={onClick}>
    {children}
  </button>
);

function Facts({ items }: { items: [string, ComponentChildren, string?][] }) {
  return (
    <dl class="facts">
      {items.map(([k, v, id]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd data-testid={id}>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

function List<R>({
  rows,
  cols,
  row,
  empty,
}: {
  rows: R[];
  cols: string[];
  row: (r: R) => ComponentChildren[];
  empty: string;
}) {
  if (rows.length === 0) return <p class="muted">{empty}</p>;
  return (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            {cols.map((c) => (
              <th key={c}>{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              {row(r).map((cell, j) => (
                <td key={j}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Receipt({ r }: { r: ReceiptDetail }) {
  return (
    <>
      <Facts
        items={[
          ['Receipt', r.receiptNo, 'detail-receipt-no'],
          ['Amount', kes(r.amount.amount), 'detail-amount'],
          ['Paid', when(r.paidAt)],
          ['Method', `${r.method} ${r.transactionRef}`],
          ['Phone', r.phone || '–'],
          ['Account', r.account],
          ['Policy', r.policyNo ?? '–'],
          ['Client', r.clientNo ?? '–'],
          ['Unallocated', kes(r.unallocated.amount)],
        ]}
      />
      <h3>Allocations</h3>
      <List
        rows={r.allocations}
        empty="Not allocated to any debit note."
        cols={['Debit note', 'KES']}
        row={(a) => [a.debitNoteNo, kes(a.amount.amount)]}
      />
    </>
  );
}

function Policy({ p, open }: { p: PolicyDetail; open: (t: Target) => void }) {
  return (
    <>
      <Facts
        items={[
          ['Policy', p.policyNo, 'detail-policy-no'],
          ['Status', words(p.status)],
          ['Client', `${p.client.name} (${p.client.clientNo})`],
          ['Insurer', p.insurer.name],
          ['Line', p.productLine],
          ['Cover', `${p.startDate} – ${p.endDate}`],
          ['Premium', kes(p.total.amount)],
        ]}
      />
      <h3>Debit notes</h3>
      <List
        rows={p.debitNotes}
        empty="None."
        cols={['Debit note', 'Due', 'KES', 'Outstanding']}
        row={(d) => [d.number, d.dueOn, kes(d.amount.amount), kes(d.outstanding.amount)]}
      />
      <h3>Receipts</h3>
      <List
        rows={p.receipts}
        empty="No payments yet."
        cols={['Receipt', 'Paid', 'KES']}
        row={(r) => [
          <Link onClick={() => open({ kind: 'receipt', receiptNo: r.receiptNo })}>{r.receiptNo}</Link>,
          when(r.paidAt),
          kes(r.amount.amount),
        ]}
      />
      {p.claims.length > 0 && (
        <>
          <h3>Claims</h3>
          <List
            rows={p.claims}
            empty="None."
            cols={['Claim', 'Status']}
            row={(c) => [
              <Link onClick={() => open({ kind: 'claim', uuid: c.uuid })}>{c.claimNo}</Link>,
              words(c.status),
            ]}
          />
        </>
      )}
      <h3>History</h3>
      <List
        rows={p.statusHistory}
        empty="None."
        cols={['When', 'From', 'To', 'Why']}
        row={(h) => [when(h.at), words(h.fromStatus), words(h.toStatus), h.reason ?? '']}
      />
    </>
  );
}

function Claim({ c, open }: { c: ClaimDetail; open: (t: Target) => void }) {
  return (
    <>
      <Facts
        items={[
          ['Claim', c.claimNo, 'detail-claim-no'],
          ['Status', <span class={c.slaBreached ? 'alert' : ''}>{words(c.status)}</span>],
          ['Policy', <Link onClick={() => open({ kind: 'policy', uuid: c.policyUuid })}>{c.policyNo}</Link>],
          ['Client', `${c.clientName} (${c.clientNo})`],
          ['Cause', words(c.cause)],
          ['Loss date', c.lossDate],
          ['Reported', when(c.reportedAt)],
          ['Reserve', kes(c.reserve.amount)],
          ['Paid', kes(c.paid.amount)],
        ]}
      />
      <h3>History</h3>
      <List
        rows={c.history}
        empty="None."
        cols={['When', 'From', 'To', 'By', 'Why']}
        row={(h) => [when(h.at), words(h.from), words(h.to), h.actorName ?? 'system', h.reason ?? '']}
      />
    </>
  );
}
