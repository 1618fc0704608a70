import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { ProspectStatus } from '../../src/generated/prisma/enums.ts';
import { PROSPECT_TRANSITIONS } from '../../src/modules/prospects/prospect-state.ts';
import type { Caller } from './org.ts';

/**
 * Prospects through the public REST API (docs/motor-and-clients.md "Prospects"), for the prospect test files: a new person's
 * identifiers, a prospect created and asserted, and a prospect walked to any status by hand.
 */

let seq = 0;
/** A person no other test of this process uses: phone, ID number and PIN (as typed and as stored). */
export function newPerson(label = 'Prospect') {
  seq += 1;
  const n = `${process.pid % 100}${String(seq).padStart(4, '0')}`.slice(-6).padStart(6, '0');
  return {
    name: `${label} ${n} Wambui`,
    phone: `0756 ${n}`,
    storedPhone: `254756${n}`,
    id_no: `63${n}`,
    kra_pin: `p0${n}12k`,
    storedPin: `P0${n}12K`,
  };
}

export async function createProspect(c: Caller, body: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await c.post('/prospects', { body, idempotencyKey: randomUUID() });
  expect(r.status, r.text).toBe(201);
  return r.body.data;
}

export function patchProspect(c: Caller, uuid: string, body: Record<string, unknown>) {
  return c.patch(`/prospects/${uuid}`, { body, idempotencyKey: randomUUID() });
}

/** The shortest path of hand moves from new to `to` (breadth first over PROSPECT_TRANSITIONS). */
export function pathTo(to: ProspectStatus): ProspectStatus[] {
  const prev = new Map<ProspectStatus, ProspectStatus | null>([['new', null]]);
  const queue: ProspectStatus[] = ['new'];
  while (queue.length) {
    const s = queue.shift()!;
    for (const next of PROSPECT_TRANSITIONS[s]) {
      if (prev.has(next)) continue;
      prev.set(next, s);
      queue.push(next);
    }
  }
  const path: ProspectStatus[] = [];
  for (let s: ProspectStatus | null | undefined = to; s && s !== 'new'; s = prev.get(s)) path.unshift(s);
  return path;
}

/** A new prospect moved by hand to `status` (lost with reason `price`). */
export async function prospectIn(c: Caller, status: ProspectStatus, body: Record<string, unknown> = {}) {
  let p = await createProspect(c, { name: newPerson().name, ...body });
  for (const s of pathTo(status)) {
    const r = await patchProspect(c, p.uuid, { status: s, ...(s === 'lost' ? { lost_reason: 'price' } : {}) });
    expect(r.status, r.text).toBe(200);
    p = r.body.data;
  }
  expect(p.status).toBe(status);
  return p;
}
