import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createRateLimitStore,
  MemoryRateLimitStore,
  rateLimitHeaders,
  RedisRateLimitStore,
  type RateLimitDecision,
  type RateLimitRule,
  type RateLimitStore,
} from "../src/lib/rate-limit.ts";

// Aligned to both 15 s and 60 s windows so expected waits are easy to derive by hand.
const T0 = 1_800_000_000_000;
const perMinute: RateLimitRule = { name: "per-minute", limit: 10, windowSeconds: 60 };
const per15s: RateLimitRule = { name: "per-15s", limit: 3, windowSeconds: 15 };

async function hits(store: RateLimitStore, rule: RateLimitRule, key: string, n: number, now: number): Promise<RateLimitDecision[]> {
  const out: RateLimitDecision[] = [];
  // Sequential on purpose: these tests are about boundaries, not concurrency.
  for (let i = 0; i < n; i++) out.push(await store.hit(rule, key, now));
  return out;
}

const allowedCount = (ds: RateLimitDecision[]) => ds.filter((d) => d.allowed).length;

/** Behaviour every store must share; `make` returns a store isolated from other tests. */
function storeContract(make: () => RateLimitStore) {
  let store: RateLimitStore;
  beforeEach(() => {
    store = make();
  });
  afterEach(async () => {
    await store.close();
  });

  it("allows exactly 10 back-to-back hits of 10 per 60 s and refuses the 11th", async () => {
    const now = T0 + 17_345; // mid-window: a quiet key is exact wherever it starts
    const ds = await hits(store, perMinute, "client", 11, now);
    expect(ds.slice(0, 10).map((d) => d.allowed)).toEqual(Array(10).fill(true));
    expect(ds.slice(0, 10).map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(ds.slice(0, 10).every((d) => d.retryAfterSeconds === 0)).toBe(true);
    const refused = ds[10];
    expect(refused).toMatchObject({ allowed: false, limit: 10, remaining: 0, policy: "10;w=60" });
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.resetSeconds).toBe(refused.retryAfterSeconds);
  });

  it("allows exactly 3 of 3 per 15 s and refuses the 4th", async () => {
    const ds = await hits(store, per15s, "client", 4, T0 + 5_000);
    expect(ds.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(ds.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(ds[3].policy).toBe("3;w=15");
  });

  it("also holds the boundary when the burst straddles a window edge", async () => {
    const before = await hits(store, perMinute, "client", 5, T0 + 59_999);
    const after = await hits(store, perMinute, "client", 6, T0 + 60_000);
    expect(allowedCount(before)).toBe(5);
    expect(after.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
  });

  it("keeps keys and rules independent", async () => {
    await hits(store, per15s, "a", 3, T0);
    expect((await store.hit(per15s, "a", T0)).allowed).toBe(false);
    expect((await store.hit(per15s, "b", T0)).allowed).toBe(true);
    const otherRule: RateLimitRule = { ...per15s, name: "other" };
    expect((await store.hit(otherRule, "a", T0)).allowed).toBe(true);
  });

  it("tells a refused client exactly when it may retry, and refused hits don't push that out", async () => {
    await hits(store, perMinute, "client", 10, T0);
    // Next window at 6 s in: 10 * (54/60) = 9 prior hits weigh in, so one more fits.
    expect((await store.hit(perMinute, "client", T0)).retryAfterSeconds).toBe(66);
    expect((await store.hit(perMinute, "client", T0 + 30_000)).retryAfterSeconds).toBe(36);
    for (let t = T0 + 1_000; t < T0 + 66_000; t += 500) {
      expect((await store.hit(perMinute, "client", t)).allowed).toBe(false);
    }
    expect((await store.hit(perMinute, "client", T0 + 65_999)).allowed).toBe(false);
    expect((await store.hit(perMinute, "client", T0 + 66_000)).allowed).toBe(true);
    expect((await store.hit(perMinute, "client", T0 + 66_000)).allowed).toBe(false);
  });

  it("rolls windows over, weighting the previous window by its remaining overlap", async () => {
    await hits(store, perMinute, "client", 10, T0);
    // Halfway into the next window the 10 earlier hits count as 5.
    const half = await hits(store, perMinute, "client", 6, T0 + 90_000);
    expect(half.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    // After a long quiet spell nothing carries over.
    expect(allowedCount(await hits(store, perMinute, "client", 11, T0 + 600_000))).toBe(10);
  });

  it("reports when capacity frees up", async () => {
    // A single hit on a quiet key only fully decays after the next window.
    const first = await store.hit(perMinute, "fresh", T0);
    expect(first).toEqual({ allowed: true, limit: 10, remaining: 9, resetSeconds: 120, retryAfterSeconds: 0, policy: "10;w=60" });

    await hits(store, per15s, "client", 3, T0 + 5_000);
    const refused = await store.hit(per15s, "client", T0 + 5_000);
    expect(refused.retryAfterSeconds).toBe(15);
    expect((await store.hit(per15s, "client", T0 + 19_999)).allowed).toBe(false);
    expect((await store.hit(per15s, "client", T0 + 20_000)).allowed).toBe(true);
  });

  it("derives headers from decisions, with Retry-After only when refused", async () => {
    const ok = await store.hit(per15s, "client", T0);
    expect(rateLimitHeaders(ok)).toEqual({
      "RateLimit-Limit": "3",
      "RateLimit-Remaining": "2",
      "RateLimit-Reset": "30",
      "RateLimit-Policy": "3;w=15",
    });
    await hits(store, per15s, "client", 2, T0);
    const refused = await store.hit(per15s, "client", T0);
    expect(rateLimitHeaders(refused)).toEqual({
      "RateLimit-Limit": "3",
      "RateLimit-Remaining": "0",
      "RateLimit-Reset": "20",
      "RateLimit-Policy": "3;w=15",
      "Retry-After": "20",
    });
  });

  it("allows exactly the limit under concurrent hits", async () => {
    const rule: RateLimitRule = { name: "burst", limit: 10, windowSeconds: 60 };
    const ds = await Promise.all(Array.from({ length: 50 }, () => store.hit(rule, "client", T0)));
    expect(allowedCount(ds)).toBe(10);
    const remainingOfAllowed = ds.filter((d) => d.allowed).map((d) => d.remaining);
    expect(remainingOfAllowed.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("rejects rules it cannot enforce exactly", async () => {
    await expect(store.hit({ name: "zero", limit: 0, windowSeconds: 60 }, "k", T0)).rejects.toThrow(RangeError);
    await expect(store.hit({ name: "frac", limit: 5, windowSeconds: 0.5 }, "k", T0)).rejects.toThrow(RangeError);
  });
}

describe("MemoryRateLimitStore", () => {
  storeContract(() => new MemoryRateLimitStore());

  it("sweeps keys whose windows no longer carry weight", async () => {
    const store = new MemoryRateLimitStore({ sweepIntervalMs: 0 });
    for (let i = 0; i < 100; i++) await store.hit(perMinute, `k${i}`, T0);
    await store.hit(perMinute, "late", T0 + 119_999);
    expect(store.size).toBe(101); // still weighted as the previous window
    await store.hit(perMinute, "late", T0 + 120_000);
    expect(store.size).toBe(1);
    await store.close();
  });
});

describe("rateLimitHeaders", () => {
  it("formats every field as a string", () => {
    const d: RateLimitDecision = { allowed: false, limit: 60, remaining: 0, resetSeconds: 7, retryAfterSeconds: 7, policy: "60;w=60" };
    expect(rateLimitHeaders(d)).toEqual({
      "RateLimit-Limit": "60",
      "RateLimit-Remaining": "0",
      "RateLimit-Reset": "7",
      "RateLimit-Policy": "60;w=60",
      "Retry-After": "7",
    });
  });
});

describe("createRateLimitStore", () => {
  it("uses memory without a Redis URL", async () => {
    const store = createRateLimitStore({});
    expect(store).toBeInstanceOf(MemoryRateLimitStore);
    await store.close();
  });
});

describe.skipIf(!process.env.REDIS_URL)("RedisRateLimitStore", () => {
  const url = process.env.REDIS_URL ?? "";
  const runPrefix = `rate-limit-test:${randomUUID()}:`;
  let testNo = 0;
  const opened: RateLimitStore[] = [];

  afterAll(async () => {
    await Promise.all(opened.map((s) => s.close()));
    const admin = new Redis(url);
    try {
      let cursor = "0";
      do {
        const [next, keys] = await admin.scan(cursor, "MATCH", `${runPrefix}*`, "COUNT", 1000);
        if (keys.length) await admin.del(...keys);
        cursor = next;
      } while (cursor !== "0");
    } finally {
      await admin.quit();
    }
  });

  storeContract(() => new RedisRateLimitStore(url, { prefix: `${runPrefix}${testNo++}:` }));

  it("is created by the factory when given a URL", async () => {
    const store = createRateLimitStore({ redisUrl: url });
    opened.push(store);
    expect(store).toBeInstanceOf(RedisRateLimitStore);
  });

  it("shares one limit between two connections (standing in for two server processes)", async () => {
    const prefix = `${runPrefix}shared:`;
    const a = new RedisRateLimitStore(url, { prefix });
    const b = new RedisRateLimitStore(url, { prefix });
    opened.push(a, b);
    const ds = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).hit(perMinute, "client", T0)));
    expect(allowedCount(ds)).toBe(10);
    expect((await a.hit(perMinute, "client", T0)).allowed).toBe(false);
    expect((await b.hit(perMinute, "client", T0)).allowed).toBe(false);
  });

  it("lets keys expire once their window stops counting", async () => {
    const prefix = `${runPrefix}ttl:`;
    const store = new RedisRateLimitStore(url, { prefix });
    opened.push(store);
    await store.hit(per15s, "client", T0);
    const admin = new Redis(url);
    try {
      const keys = await admin.keys(`${prefix}*`);
      expect(keys).toHaveLength(1);
      const ttl = await admin.pttl(keys[0]);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(30_000);
    } finally {
      await admin.quit();
    }
  });
});
