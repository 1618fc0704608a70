import net from 'node:net';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { overloadError } from '../src/lib/problem.ts';

/** A port nothing listens on: bound, then let go. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

// Issue 30 (found by an outside check): with the pooler stopped every request was a 500. The database, or the pooler
// before it, not answering is an outage of the service: 503 with Retry-After, as a busy pool is. The errors here are
// the real ones, from Prisma over the pg adapter and from pg itself, against a port nothing listens on.
describe('a database that cannot be reached', () => {
  it('is 503 service_unavailable with Retry-After, from Prisma and from pg alike; other faults are not', async () => {
    const url = `postgresql://bima_app@127.0.0.1:${await closedPort()}/bima`;
    const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) });
    try {
      const fromPrisma = await prisma.$queryRaw`SELECT 1`.then(
        () => null,
        (e: unknown) => e,
      );
      const fromModel = await prisma.tenant.findFirst().then(
        () => null,
        (e: unknown) => e,
      );
      const fromPg = await new pg.Client({ connectionString: url }).connect().then(
        () => null,
        (e: unknown) => e,
      );
      for (const err of [fromPrisma, fromModel, fromPg]) {
        const p = overloadError(err);
        expect(p, String(err)).not.toBeNull();
        expect(p).toMatchObject({ code: 'service_unavailable', status: 503, headers: { 'Retry-After': '5' } });
      }
      expect(overloadError(new Error('boom'))).toBeNull();
    } finally {
      await prisma.$disconnect();
    }
  });
});
