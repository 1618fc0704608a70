import { useState } from 'preact/hooks';
import { type Session, signIn } from './api.ts';
import { HourlyChart } from './chart.tsx';
import { useBoard } from './live.ts';
import { Detail } from './detail.tsx';
import { Card, Collections, Feed, StatusTable, WebhookHealth } from './panels.tsx';
import type { Target } from './queries.ts';

export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  if (!session) return <SignInForm notice={notice} onSession={(s) => (setNotice(null), setSession(s))} />;
  return <Dashboard session={session} signOut={(why) => (setNotice(why), setSession(null))} />;
}

function SignInForm({ notice, onSession }: { notice: string | null; onSession: (s: Session) => void }) {
  const [error, setError] = useState<string | null>(notice);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const field = (k: string) => {
      const v = form.get(k);
      return typeof v === 'string' ? v : '';
    };
    setBusy(true);
    try {
      onSession(
        await signIn({ clientId: field('client_id'), clientSecret: field('client_secret'), bearer: field('bearer') }),
      );
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <h1>Bima Gateway operations</h1>
      <form onSubmit={(e) => void submit(e)} autocomplete="off">
        <p>Sign in with an API client of your organisation (staff see everything, an agent key its own book).</p>
        <label>
          Client id <input name="client_id" autocomplete="off" spellcheck={false} />
        </label>
        <label>
          Client secret <input name="client_secret" type="password" autocomplete="off" />
        </label>
        <p class="or">or</p>
        <label>
          Bearer token <input name="bearer" type="password" autocomplete="off" />
        </label>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

function Dashboard({ session, signOut }: { session: Session; signOut: (why: string) => void }) {
  const b = useBoard(session, signOut);
  const [target, setTarget] = useState<Target | null>(null);
  const me = b.figures?.me;
  return (
    <main class="board">
      <header>
        <h1>{me ? me.tenant.name : 'Loading…'}</h1>
        {me && (
          <span class="who" data-testid="whoami">
            {me.client.name}
            {me.actor ? ` · ${me.actor.name} (${me.actor.ownRecordsOnly ? 'own records' : me.actor.role})` : ''}
          </span>
        )}
        <span class="actions">
          <span class={`live ${b.live}`} data-testid="live-status">
            {b.live}
          </span>
          <button type="button" onClick={() => signOut('Signed out')}>
            Sign out
          </button>
        </span>
      </header>
      {b.error && (
        <p class="error" role="alert">
          {b.error}
        </p>
      )}
      {b.figures && (
        <div class="grid">
          <Card title={`Collections today (${b.figures.collectionsSummary.date})`}>
            <Collections c={b.figures.collectionsSummary} open={setTarget} />
          </Card>
          <Card title="Collected per hour (KES)">
            <HourlyChart byHour={b.figures.collectionsSummary.byHour} />
          </Card>
          <Card title="Live">
            <Feed items={b.feed} loaded={b.history} open={setTarget} />
          </Card>
          <Card title="Policies by state">
            <StatusTable
              rows={b.figures.policyCounts}
              id="policy-counts"
              open={(status) => setTarget({ kind: 'policies', status })}
            />
          </Card>
          <Card title="Claims by state">
            <StatusTable
              rows={b.figures.claimCounts}
              id="claim-counts"
              sla
              open={(status) => setTarget({ kind: 'claims', status })}
            />
          </Card>
          <Card title="Webhook endpoints">
            <WebhookHealth webhooks={b.webhooks} />
          </Card>
        </div>
      )}
      {target && <Detail session={session} target={target} onClose={() => setTarget(null)} />}
    </main>
  );
}
