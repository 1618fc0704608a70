import type { IncomingMessage } from 'node:http';
import { AppError } from '../lib/problem.ts';

export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) {
    req.resume();
    throw new AppError('payload_too_large', { detail: `Request bodies are limited to ${maxBytes} bytes` });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new AppError('payload_too_large', { detail: `Request bodies are limited to ${maxBytes} bytes` });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** JSON request bodies; an empty body is `undefined`. */
export function parseJson(raw: Buffer, req: IncomingMessage): unknown {
  if (raw.length === 0) return undefined;
  const type = mediaType(req);
  if (type && type !== 'application/json' && !type.endsWith('+json')) {
    throw new AppError('unsupported_media_type', { detail: 'Send JSON with Content-Type: application/json' });
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (e) {
    throw new AppError('invalid_request', { detail: `Malformed JSON body: ${(e as Error).message.slice(0, 120)}` });
  }
}

/** Deterministic JSON (sorted keys) so the same request hashes the same whatever its key order. */
export function canonicalJson(v: unknown): string {
  if (v === undefined) return '';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}
