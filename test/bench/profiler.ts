import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import WebSocket from 'ws';

/**
 * BENCH_CPU_PROF=<dir>: a V8 CPU profile of the service for each scenario's measurement alone (not its start, seed or
 * setup), taken over the inspector protocol of the service started with `--inspect` on `port` and written to
 * `<dir>/<scenario>.cpuprofile` (open it in Chrome's DevTools, or summarise its self time by package).
 *
 * BENCH_HEAP_PROF=<dir>: instead, V8's sampling heap profile of what the measurement allocated, garbage included
 * (objects a scavenge or a full collection took back are kept in the profile), written to `<dir>/<scenario>.heapprofile`
 * (DevTools' Memory tab opens it); the run also logs the bytes allocated per request it implies.
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

  /** Bytes per sample of the heap profile: each sample stands for about this much allocation. */
  static readonly HEAP_SAMPLING_BYTES = 16 * 1024;

  static async connect(port: number): Promise<Profiler> {
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
      webSocketDebuggerUrl: string;
    }[];
    const ws = new WebSocket(targets[0].webSocketDebuggerUrl);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const profiler = new Profiler(ws);
    await profiler.#call('Profiler.enable');
    await profiler.#call('HeapProfiler.enable');
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

  /**
   * Runs `fn` with allocations sampled, writes the profile to `<dir>/<name>.heapprofile` and returns `fn`'s result with
   * the bytes the profile accounts for (every sample's self size, summed over the tree).
   */
  async heapAround<T>(dir: string, name: string, fn: () => Promise<T>): Promise<{ result: T; bytes: number }> {
    await this.#call('HeapProfiler.collectGarbage');
    await this.#call('HeapProfiler.startSampling', {
      samplingInterval: Profiler.HEAP_SAMPLING_BYTES,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    const stop = async () => {
      const { profile } = (await this.#call('HeapProfiler.stopSampling')) as { profile: { head: HeapNode } };
      await mkdir(dir, { recursive: true });
      const file = path.join(dir, `${name.replace(/[^\w.-]+/g, '_').replace(/^_+|_+$/g, '')}.heapprofile`);
      await writeFile(file, JSON.stringify(profile));
      return sumSelf(profile.head);
    };
    let result: T;
    try {
      result = await fn();
    } catch (e) {
      await stop();
      throw e;
    }
    return { result, bytes: await stop() };
  }

  close(): void {
    this.#ws.close();
  }
}

interface HeapNode {
  selfSize: number;
  children: HeapNode[];
}

const sumSelf = (n: HeapNode): number => n.children.reduce((a, c) => a + sumSelf(c), n.selfSize);
