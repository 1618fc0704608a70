import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import WebSocket from 'ws';

/**
 * BENCH_CPU_PROF=<dir>: a V8 CPU profile of the service for each scenario's measurement alone (not its start, seed or
 * setup), taken over the inspector protocol of the service started with `--inspect` on `port` and written to
 * `<dir>/<scenario>.cpuprofile` (open it in Chrome's DevTools, or summarise its self time by package).
 */
export class Profiler {
  #ws: WebSocket;
  #next = 1;
  #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.on('message', (data) => {
      const m = JSON.parse((data as Buffer).toString('utf8')) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
      };
      const p = m.id === undefined ? undefined : this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id!);
      if (m.error) p.reject(new Error(m.error.message));
      else p.resolve(m.result);
    });
  }

  static async connect(port: number): Promise<Profiler> {
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
      webSocketDebuggerUrl: string;
    }[];
    const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const profiler = new Profiler(ws);
    await profiler.#call('Profiler.enable');
    return profiler;
  }

  #call(method: string, params: object = {}): Promise<unknown> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Runs `fn` with the profiler sampling, and writes what it sampled to `<dir>/<name>.cpuprofile`. */
  async around<T>(dir: string, name: string, fn: () => Promise<T>): Promise<T> {
    await this.#call('Profiler.start');
    try {
      return await fn();
    } finally {
      const { profile } = (await this.#call('Profiler.stop')) as { profile: unknown };
      await mkdir(dir, { recursive: true });
      const file = path.join(dir, `${name.replace(/[^\w.-]+/g, '_').replace(/^_+|_+$/g, '')}.cpuprofile`);
      await writeFile(file, JSON.stringify(profile));
    }
  }

  close(): void {
    this.#ws.close();
  }
}
