import { freePort } from '../../src/db/embedded.ts';
import { Api, type HttpResult } from './http.ts';
import { type Spawned, spawnServer, stopWith, waitHealthy } from './spawn.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A child server process on a database of its own, restartable on the same data and the same port (so a rail that
 * kept a CallBackURL reaches the restarted service, as it would reach a real one). Fast rail settings unless `extra`
 * sets its own. It runs the compiled build as `npm start` does (spawnServer's `bundle`): each start and restart loaded
 * the sources under tsx before, and the crash-point file took 116 s against about 80 now.
 */
export class Child {
  s!: Spawned;
  port = 0;
  constructor(
    readonly databaseUrl: string,
    readonly dataDir: string,
  ) {}

  async start(extra: Record<string, string> = {}): Promise<this> {
    this.port ||= await freePort();
    this.s = spawnServer(
      {
        PORT: String(this.port),
        DATA_DIR: this.dataDir,
        DATABASE_URL: this.databaseUrl,
        NODE_ENV: 'test',
        DEMO_SEED: '0',
        LOG_LEVEL: 'warn',
        BIND_RATE_LIMIT: '100000',
        TOKEN_RATE_LIMIT_PER_MINUTE: '100000',
        PAYMENTS_SWEEP_SECONDS: '1',
        MPESA_RAIL_TIMEOUT_MS: '1500',
        MPESA_SIM_DELAY_MS: '300',
        ...extra,
      },
      { bundle: true },
    );
    await waitHealthy(this.s, 90_000);
    return this;
  }

  get origin() {
    return `http://127.0.0.1:${this.port}`;
  }

  async kill() {
    await stopWith(this.s, 'SIGKILL', 10_000);
  }
}

/** Pushes until an answer that is not a dropped connection or a 503 (the server was down): the client's retry loop. */
export async function pushUntilAnswered(
  origin: () => string,
  token: () => string,
  body: unknown,
  key: string,
  deadline: number,
): Promise<HttpResult> {
  let last: string;
  for (;;) {
    try {
      const r = await new Api(origin()).post('/payment/stk/push', { token: token(), body, idempotencyKey: key });
      if (r.status !== 503 && r.status !== 401) return r;
      last = `${r.status} ${r.text}`;
    } catch (e) {
      /* connection refused or reset: the process is down */
      last = String(e);
    }
    if (Date.now() > deadline) throw new Error(`push ${key} never answered: ${last}`);
    await sleep(200);
  }
}
