import http from 'node:http';

/** One HTTP request, fully specified: the same object is replayed against the service and its baseline. */
export interface RequestSpec {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Whether a response counts as a success; default: status 2xx. */
  ok?: (status: number, body: Buffer) => boolean;
  /**
   * For writes that may not repeat (unique keys, registrations): the body and extra headers of each request,
   * built per request in the load generator. The same generator drives the baseline, so both pay for it.
   */
  vary?: () => { body?: Buffer; headers?: Record<string, string> };
}

/** The request to send now: `spec` itself, or one fresh variation of it. */
export function materialize(spec: RequestSpec): RequestSpec {
  if (!spec.vary) return spec;
  const v = spec.vary();
  return { ...spec, body: v.body ?? spec.body, headers: { ...spec.headers, ...v.headers } };
}

export interface Response {
  status: number;
  rawHeaders: string[];
  body: Buffer;
}

export interface LoadResult {
  completed: number;
  /** Responses that `ok` rejected, by status (a GraphQL 200 carrying errors shows as "200"). */
  failures: Map<string, number>;
  /** Requests that got no response at all, by error code. */
  transportErrors: Map<string, number>;
  /** Nanoseconds, one per completed request (failures included: they were answered). */
  latenciesNs: BigUint64Array;
  elapsedNs: bigint;
}

const isOk = (status: number) => status >= 200 && status < 300;

export function send(agent: http.Agent, origin: URL, spec: RequestSpec): Promise<Response> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...spec.headers };
    if (spec.body) headers['content-length'] = spec.body.length;
    const req = http.request(
      { agent, host: origin.hostname, port: origin.port, method: spec.method, path: spec.path, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(spec.body);
  });
}

/** One request on a throwaway agent, its body parsed as JSON when it is JSON (for setup and checks). */
export async function call(origin: string, spec: RequestSpec): Promise<{ status: number; json: any; text: string }> {
  const agent = new http.Agent();
  try {
    const res = await send(agent, new URL(origin), spec);
    const text = res.body.toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, json, text };
  } finally {
    agent.destroy();
  }
}

function bump(m: Map<string, number>, k: string): void {
  m.set(k, (m.get(k) ?? 0) + 1);
}

/**
 * A closed loop: `concurrency` workers, each sending its next request as soon as the previous one is answered,
 * over a keep-alive agent with exactly one socket per worker. New requests stop at the deadline; the ones in
 * flight are waited for and counted, and elapsed time runs until the last one lands.
 */
export async function runLoad(opts: {
  origin: string;
  spec: RequestSpec;
  concurrency: number;
  seconds: number;
}): Promise<LoadResult> {
  const origin = new URL(opts.origin);
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency, maxFreeSockets: opts.concurrency });
  const ok = opts.spec.ok ?? ((s: number) => isOk(s));
  let latencies = new BigUint64Array(1 << 16);
  let completed = 0;
  const failures = new Map<string, number>();
  const transportErrors = new Map<string, number>();
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.round(opts.seconds * 1e9));

  const worker = async () => {
    while (process.hrtime.bigint() < deadline) {
      const spec = materialize(opts.spec);
      const t0 = process.hrtime.bigint();
      try {
        const res = await send(agent, origin, spec);
        const dt = process.hrtime.bigint() - t0;
        if (completed === latencies.length) {
          const grown = new BigUint64Array(latencies.length * 2);
          grown.set(latencies);
          latencies = grown;
        }
        latencies[completed++] = dt;
        if (!ok(res.status, res.body)) bump(failures, String(res.status));
      } catch (err) {
        bump(transportErrors, (err as NodeJS.ErrnoException).code ?? (err as Error).message);
        // A refused or reset connection fails instantly: pause so a dead target doesn't spin the loop.
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const elapsedNs = process.hrtime.bigint() - start;
  agent.destroy();
  return { completed, failures, transportErrors, latenciesNs: latencies.slice(0, completed), elapsedNs };
}
