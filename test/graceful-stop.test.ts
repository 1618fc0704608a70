import { spawn } from 'node:child_process';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.ts';

/**
 * A stop answers every request already sent (docs/operations.md SHUTDOWN_DRAIN_MS). Found by an outside check
 * (2026-12-03): 30 requests sent on their own connections just before SIGTERM, 25 reset: the server stopped listening
 * (what was still in the kernel's accept queue was reset) and dropped every accepted connection not yet read.
 */

/** A client in a process of its own: on `go`, N connections each sending one request; prints what each got. */
const CLIENT = `
const net = require('node:net');
const [port, n] = process.argv.slice(1).map(Number);
process.stdout.write('ready\\n');
process.stdin.once('data', () => {
  const got = [];
  for (let i = 0; i < n; i++) {
    const s = net.connect(port, '127.0.0.1', () => s.write('GET /api/v1/insurers HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n'));
    let text = '';
    s.setEncoding('utf8');
    s.on('data', (d) => (text += d));
    s.on('error', (e) => (text = 'error ' + e.code));
    s.on('close', () => {
      got.push(text);
      if (got.length === n) process.stdout.write(JSON.stringify(got) + '\\n', () => process.exit(0));
    });
  }
});
`;

describe('a graceful stop', () => {
  it('answers requests sent before the stop that the server had not yet accepted or read; then takes no more', async () => {
    const t = await startTestApp({ shutdownDrainMs: 1_000 });
    const { port } = t.app.http.server.address() as net.AddressInfo;
    const N = 30;
    const child = spawn(process.execPath, ['-e', CLIENT, String(port), String(N)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    const line = (test: (s: string) => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => (test(out) ? resolve() : child.stdout.once('data', (d: string) => ((out += d), check())));
        check();
      });
    await line((s) => s.includes('ready\n'));
    child.stdin.write('go\n');
    // This process busy for half a second: the client's connections wait in the kernel's accept queue, their
    // requests sent, and the stop comes before this process has accepted or read any of them.
    const until = Date.now() + 500;
    while (Date.now() < until);
    const stopped = t.stop();
    await line((s) => s.trim().split('\n').length > 1);
    await stopped;
    const got = JSON.parse(out.trim().split('\n')[1]) as string[];
    expect(got).toHaveLength(N);
    // Each answered (401: no token; the point is an answer), and told the connection closes.
    for (const g of got) {
      expect(g.split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized');
      expect(g.toLowerCase()).toContain('connection: close');
    }
    // And once stopped, no new connection is taken.
    const late = await new Promise<string>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => resolve('connected'));
      s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    expect(late).toBe('ECONNREFUSED');
  });
});
