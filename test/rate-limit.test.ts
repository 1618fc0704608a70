import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createRateLimitStore,
  MemoryRateLimitStore,
  rateLimitHeaders,
  RedisRateLimitStore,
  type RateLimitDecision,
  type RateLimitRule,
  type RateLimitStore,
} from '../src/lib/rate-limit.ts';

// Time is injected everywhere: no test waits for the clock. T0 is a multiple of both windows, so the tests that
// start off T0 show that results don't depend on where hits fall relative to clock-aligned windows.
const T0 = 1_800_000_000_000;
const s = (seconds: number) => T0 + Math.round(seconds * 1000);
const perMinute: RateLimitRule = { name: 'per-minute', limit: 10, windowSeconds: 60 };
const per15s: RateLimitRule = { name: 'per-15s', limit: 3, windowSeconds: 15 };

async function hits(
  store: RateLimitStore,
  rule: RateLimitRule,
  key: string,
  n: number,
  now: number,
): Promise<RateLimitDecision[]> {
  const out: RateLimitDecision[] = [];
  // Sequential on purpose: these tests are about boundaries, not concurrency.
  for (let i = 0; i < n; i++) out.push(await store.hit(rule, key, now));
  return out;
}

const allowedCount = (ds: RateLimitDecision[]) => ds.filter((d) => d.allowed).length;
const refusal = (retryAfterSeconds: number, limit = 3, policy = '3;w=15') => ({
  allowed: false,
  limit,
  remaining: 0,
  resetSeconds: retryAfterSeconds,
  retryAfterSeconds,
  policy,
});

/** Behaviour every store must share; `make` returns a store isolated from other tests. */
function storeContract(make: () => RateLimitStore) {
  let store: RateLimitStore;
  beforeEach(() => {
    store = make();
  });
  afterEach(async () => {
    await store.close();
  });

  it('allows 3 of 3 per 15 s, then refuses with Retry-After = 15 s minus the time since the burst, rounded up', async () => {
    const burst = await hits(store, per15s, 'client', 3, s(7.3));
    expect(burst.map((d) => [d.allowed, d.remaining, d.retryAfterSeconds])).toEqual([
      [true, 2, 0],
      [true, 1, 0],
      [true, 0, 0],
    ]);
    expect(await store.hit(per15s, 'client', s(7.3))).toEqual(refusal(15));
    expect(await store.hit(per15s, 'client', s(11.5))).toEqual(refusal(11)); // 10.8 s left
    expect(await store.hit(per15s, 'client', s(21.3))).toEqual(refusal(1));
    expect(await store.hit(per15s, 'client', s(22.299))).toEqual(refusal(1));
    // At exactly t0 + 15 s all three have left the window: the whole quota is back.
    const back = await hits(store, per15s, 'client', 4, s(22.3));
    expect(back.map((d) => d.allowed)).toEqual([true, true, true, false]);
  });

  it('frees one slot per hit as each leaves the window when hits are spread out', async () => {
    for (const t of [0, 5, 10]) expect((await store.hit(per15s, 'client', s(t))).allowed).toBe(true);
    expect(await store.hit(per15s, 'client', s(14.9))).toEqual(refusal(1));
    const atFifteen = await store.hit(per15s, 'client', s(15));
    expect(atFifteen).toMatchObject({ allowed: true, remaining: 0, retryAfterSeconds: 0, resetSeconds: 5 });
    // Only the hit at 0 left: the next slot frees when the one at 5 does.
    expect(await store.hit(per15s, 'client', s(15))).toEqual(refusal(5));
    expect(await store.hit(per15s, 'client', s(19.999))).toEqual(refusal(1));
    expect((await store.hit(per15s, 'client', s(20))).allowed).toBe(true);
  });

  it('never admits a 4th within 15 s of 3, wherever they fall (the two-window approximation let one through here)', async () => {
    await hits(store, per15s, 'client', 3, s(14));
    expect(await store.hit(per15s, 'client', s(20))).toEqual(refusal(9));
    expect(await store.hit(per15s, 'client', s(28.999))).toEqual(refusal(1));
    expect((await store.hit(per15s, 'client', s(29))).allowed).toBe(true);
  });

  it('allows exactly 10 back-to-back hits of 10 per 60 s, even across a clock-aligned window edge', async () => {
    const before = await hits(store, perMinute, 'client', 5, s(59.999));
    const after = await hits(store, perMinute, 'client', 6, s(60));
    expect([...before, ...after].map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0]);
    expect(after.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    expect(allowedCount(before)).toBe(5);
    // The five at 59.999 leave first.
    expect(after[5]).toEqual(refusal(60, 10, '10;w=60'));
    expect(allowedCount(await hits(store, perMinute, 'client', 6, s(119.999)))).toBe(5);
  });

  it("doesn't let refused hits push the retry time out", async () => {
    await hits(store, per15s, 'client', 3, T0);
    for (let ms = 0; ms < 15_000; ms += 250) {
      expect(await store.hit(per15s, 'client', T0 + ms)).toEqual(refusal(Math.ceil((15_000 - ms) / 1000)));
    }
    expect((await store.hit(per15s, 'client', s(15))).allowed).toBe(true);
  });

  it('stays exact for a client running at the limit for a long time', async () => {
    // One hit every 6 s exactly fills 10 per 60 s: each is allowed as the one from 60 s earlier leaves.
    for (let t = 0; t <= 1_200; t += 6) {
      expect(await store.hit(perMinute, 'steady', s(t))).toMatchObject({
        allowed: true,
        remaining: t < 54 ? 9 - t / 6 : 0,
      });
      if (t >= 54) expect((await store.hit(perMinute, 'steady', s(t))).retryAfterSeconds).toBe(6);
    }
  });

  it('keeps keys and rules independent', async () => {
    await hits(store, per15s, 'a', 3, T0);
    expect((await store.hit(per15s, 'a', T0)).allowed).toBe(false);
    expect((await store.hit(per15s, 'b', T0)).allowed).toBe(true);
    expect((await store.hit({ ...per15s, name: 'other' }, 'a', T0)).allowed).toBe(true);
  });

  it('reports when the oldest hit leaves the window as the reset time', async () => {
    expect(await store.hit(perMinute, 'client', T0)).toEqual({
      allowed: true,
      limit: 10,
      remaining: 9,
      resetSeconds: 60,
      retryAfterSeconds: 0,
      policy: '10;w=60',
    });
    await store.hit(perMinute, 'client', s(20));
    expect(await store.hit(perMinute, 'client', s(30.5))).toMatchObject({
      allowed: true,
      remaining: 7,
      resetSeconds: 30,
    });
    // Once the first hit has gone, the second is the oldest.
    expect(await store.hit(perMinute, 'client', s(60))).toMatchObject({
      allowed: true,
      remaining: 7,
      resetSeconds: 20,
    });
    // A quiet spell leaves nothing behind.
    expect(allowedCount(await hits(store, perMinute, 'client', 11, s(600)))).toBe(10);
  });

  it('judges logged hits by the rule in force: a lowered limit waits until enough of them leave', async () => {
    const five: RateLimitRule = { name: 'token', limit: 5, windowSeconds: 60 };
    const two: RateLimitRule = { ...five, limit: 2 };
    for (const t of [0, 10, 20, 30, 40]) expect((await store.hit(five, 'client', s(t))).allowed).toBe(true);
    // Five logged, two allowed: only once the fourth oldest (at 30) leaves is there room.
    expect(await store.hit(two, 'client', s(45))).toEqual(refusal(45, 2, '2;w=60'));
    expect((await store.hit(two, 'client', s(89.999))).allowed).toBe(false);
    expect(await store.hit(two, 'client', s(90))).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 10 });
  });

  it("orders hits by their time, not their arrival (servers' clocks disagree)", async () => {
    for (const t of [10, 5, 12]) expect((await store.hit(per15s, 'client', s(t))).allowed).toBe(true);
    expect(await store.hit(per15s, 'client', s(12))).toEqual(refusal(8)); // the hit at 5 is the oldest
    expect((await store.hit(per15s, 'client', s(20))).allowed).toBe(true);
  });

  it('derives headers from decisions, with Retry-After only when refused', async () => {
    expect(rateLimitHeaders(await store.hit(per15s, 'client', T0))).toEqual({
      'RateLimit-Limit': '3',
      'RateLimit-Remaining': '2',
      'RateLimit-Reset': '15',
      'RateLimit-Policy': '3;w=15',
    });
    await hits(store, per15s, 'client', 2, s(3));
    expect(rateLimitHeaders(await store.hit(per15s, 'client', s(4)))).toEqual({
      'RateLimit-Limit': '3',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '11',
      'RateLimit-Policy': '3;w=15',
      'Retry-After': '11',
    });
  });

  it('allows exactly the limit under 50 concurrent hits', async () => {
    const rule: RateLimitRule = { name: 'burst', limit: 10, windowSeconds: 60 };
    const ds = await Promise.all(Array.from({ length: 50 }, () => store.hit(rule, 'client', T0)));
    expect(allowedCount(ds)).toBe(10);
    expect(
      ds
        .filter((d) => d.allowed)
        .map((d) => d.remaining)
        .sort((a, b) => a - b),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(ds.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds === 60 && d.remaining === 0)).toBe(true);
  });

  it('rejects rules and times it cannot enforce exactly', async () => {
    await expect(store.hit({ name: 'zero', limit: 0, windowSeconds: 60 }, 'k', T0)).rejects.toThrow(RangeError);
    await expect(store.hit({ name: 'frac', limit: 5, windowSeconds: 0.5 }, 'k', T0)).rejects.toThrow(RangeError);
    await expect(store.hit(per15s, 'k', Number.NaN)).rejects.toThrow(RangeError);
    await expect(store.hit(per15s, 'k', T0, 0)).rejects.toThrow(RangeError);
    await expect(store.hit(per15s, 'k', T0, 1.5)).rejects.toThrow(RangeError);
    await expect(store.peek(per15s, 'k', T0, -1)).rejects.toThrow(RangeError);
  });

  it('charges a weighted hit whole or not at all', async () => {
    expect(await store.hit(perMinute, 'client', T0, 4)).toMatchObject({
      allowed: true,
      remaining: 6,
      resetSeconds: 60,
    });
    // 7 more do not fit in the 6 left: nothing is logged, and Retry-After is when all 7 would fit.
    expect(await store.hit(perMinute, 'client', s(1), 7)).toEqual({ ...refusal(59, 10, '10;w=60'), remaining: 6 });
    expect(await store.hit(perMinute, 'client', s(1), 6)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await store.hit(perMinute, 'client', s(1))).toEqual(refusal(59, 10, '10;w=60'));
  });

  it('makes a weighted refusal wait until enough of the logged hits have left', async () => {
    const five: RateLimitRule = { name: 'five', limit: 5, windowSeconds: 60 };
    for (const t of [0, 10, 20, 30]) expect((await store.hit(five, 'client', s(t))).allowed).toBe(true);
    // 4 logged, 1 left: 3 fit once the hits at 0 and 10 have gone.
    expect(await store.hit(five, 'client', s(40), 3)).toMatchObject({
      allowed: false,
      remaining: 1,
      retryAfterSeconds: 30,
    });
    expect((await store.hit(five, 'client', s(69.999), 3)).allowed).toBe(false);
    expect(await store.hit(five, 'client', s(70), 3)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 10 });
  });

  it('never admits a cost above the limit, and logs nothing for it', async () => {
    expect(await store.hit(per15s, 'client', T0, 4)).toEqual({ ...refusal(15), remaining: 3 });
    expect(await store.hit(per15s, 'client', T0)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('admits exactly as many weighted hits as fit under concurrency', async () => {
    const ds = await Promise.all(Array.from({ length: 20 }, () => store.hit(perMinute, 'client', T0, 3)));
    expect(allowedCount(ds)).toBe(3);
    expect(await store.hit(perMinute, 'client', T0)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('peeks: decides as a hit would, and logs nothing', async () => {
    expect(await store.peek(per15s, 'client', T0)).toEqual({
      allowed: true,
      limit: 3,
      remaining: 2,
      resetSeconds: 15,
      retryAfterSeconds: 0,
      policy: '3;w=15',
    });
    expect(await store.peek(per15s, 'client', T0, 3)).toMatchObject({ allowed: true, remaining: 0 });
    await hits(store, per15s, 'client', 3, T0);
    expect(await store.peek(per15s, 'client', s(5))).toEqual(refusal(10));
    expect(await store.hit(per15s, 'client', s(5))).toEqual(refusal(10));
    expect(await store.peek(per15s, 'client', s(15))).toMatchObject({ allowed: true, remaining: 2 });
    expect(await store.peek(per15s, 'client', s(15))).toMatchObject({ allowed: true, remaining: 2 });
    expect(await store.hit(per15s, 'client', s(15))).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 15 });
  });
}

describe('MemoryRateLimitStore', () => {
  storeContract(() => new MemoryRateLimitStore());

  it('sweeps keys once their newest hit has left the window', async () => {
    const store = new MemoryRateLimitStore({ sweepIntervalMs: 0 });
    for (let i = 0; i < 100; i++) await store.hit(perMinute, `k${i}`, T0);
    await store.hit(perMinute, 'late', s(59.999));
    expect(store.size).toBe(101); // the hits at T0 still count
    await store.hit(perMinute, 'late', s(60));
    expect(store.size).toBe(1);
    await store.close();
  });

  it('keeps no log for a key that was only peeked at', async () => {
    const store = new MemoryRateLimitStore();
    await store.peek(perMinute, 'nobody', T0, 5);
    expect(store.size).toBe(0);
    await store.close();
  });

  it("sweeps lazily, at most once per interval of the caller's clock", async () => {
    const store = new MemoryRateLimitStore({ sweepIntervalMs: 30_000 });
    await store.hit(per15s, 'old', T0); // the first hit sweeps; the next sweep is due at T0 + 30 s
    await store.hit(per15s, 'new', s(20));
    expect(store.size).toBe(2);
    await store.hit(per15s, 'new', s(30));
    expect(store.size).toBe(1);
    await store.close();
  });
});

describe('rateLimitHeaders', () => {
  it('formats every field as a string', () => {
    expect(rateLimitHeaders(refusal(7, 60, '60;w=60'))).toEqual({
      'RateLimit-Limit': '60',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '7',
      'RateLimit-Policy': '60;w=60',
      'Retry-After': '7',
    });
  });
});

describe('createRateLimitStore', () => {
  it('uses memory without a Redis URL', async () => {
    const store = createRateLimitStore({ namespace: 'ignored' });
    expect(store).toBeInstanceOf(MemoryRateLimitStore);
    await store.close();
  });
});

describe.skipIf(!process.env.REDIS_URL)('RedisRateLimitStore', () => {
  const url = process.env.REDIS_URL ?? '';
  const run = randomUUID();
  const runPrefix = `rate-limit-test:${run}:`;
  let testNo = 0;
  const opened: RateLimitStore[] = [];
  let admin: Redis;
  const open = (prefix: string) => {
    const store = new RedisRateLimitStore(url, { prefix });
    opened.push(store);
    return store;
  };

  beforeAll(() => {
    admin = new Redis(url);
  });
  afterAll(async () => {
    await Promise.all(opened.map((st) => st.close()));
    for (const pattern of [`${runPrefix}*`, `ratelimit:${run}*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await admin.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        if (keys.length) await admin.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
    await admin.quit();
  });

  storeContract(() => new RedisRateLimitStore(url, { prefix: `${runPrefix}${testNo++}:` }));

  it('shares one limit and one log between two connections (standing in for two server processes)', async () => {
    const [a, b] = [open(`${runPrefix}shared:`), open(`${runPrefix}shared:`)];
    const ds = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).hit(perMinute, 'client', T0)));
    expect(allowedCount(ds)).toBe(10);
    expect((await a.hit(perMinute, 'client', s(30))).retryAfterSeconds).toBe(30);
    expect((await b.hit(perMinute, 'client', s(59.999))).allowed).toBe(false);
    expect((await b.hit(perMinute, 'client', s(60))).allowed).toBe(true);
    expect(await a.hit(perMinute, 'client', s(60))).toMatchObject({ allowed: true, remaining: 8 });
  });

  it('keeps one sorted set per rule and key, in its own cluster slot, expiring when the window has passed', async () => {
    const prefix = `${runPrefix}ttl:`;
    const store = open(prefix);
    await hits(store, per15s, 'client', 4, T0);
    const keys = await admin.keys(`${prefix}*`);
    expect(keys).toEqual([`${prefix}{per-15s:client}:log`]);
    expect(await admin.type(keys[0])).toBe('zset');
    expect(await admin.zcard(keys[0])).toBe(3); // the refused 4th is not logged
    const ttl = await admin.pttl(keys[0]);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(15_000);
  });

  it('keeps the log alive while a hit stamped by a clock that runs ahead still counts', async () => {
    const prefix = `${runPrefix}skew:`;
    const store = open(prefix);
    await store.hit(per15s, 'client', s(10));
    await store.hit(per15s, 'client', T0);
    const ttl = await admin.pttl(`${prefix}{per-15s:client}:log`);
    expect(ttl).toBeGreaterThan(15_000);
    expect(ttl).toBeLessThanOrEqual(25_000);
  });

  it("is created by the factory under ratelimit:<namespace>:, and namespaces don't share limits", async () => {
    const [x, y] = [`${run}-x`, `${run}-y`].map((namespace) => createRateLimitStore({ redisUrl: url, namespace }));
    opened.push(x, y);
    expect(x).toBeInstanceOf(RedisRateLimitStore);
    await hits(x, per15s, 'client', 3, T0);
    expect((await x.hit(per15s, 'client', T0)).allowed).toBe(false);
    expect((await y.hit(per15s, 'client', T0)).allowed).toBe(true);
    expect(
      await admin.exists(`ratelimit:${run}-x:{per-15s:client}:log`, `ratelimit:${run}-y:{per-15s:client}:log`),
    ).toBe(2);
  });
});
