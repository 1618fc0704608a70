import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AsyncSlot } from '../src/lib/async-slot.ts';

/** Slots share one AsyncLocalStorage (src/lib/async-slot.ts) and must behave as storages of their own would. */
describe('AsyncSlot', () => {
  const a = new AsyncSlot<string>();
  const b = new AsyncSlot<number>();

  it('carries a value across awaits, timers and promises made inside, and not outside', async () => {
    expect(a.getStore()).toBeUndefined();
    const seen = await a.run('x', async () => {
      await sleep(1);
      const later = await new Promise<string | undefined>((r) => setTimeout(() => r(a.getStore()), 1));
      return [a.getStore(), later];
    });
    expect(seen).toEqual(['x', 'x']);
    expect(a.getStore()).toBeUndefined();
  });

  it("one slot's run or exit leaves the others' values as they are", async () => {
    await a.run('outer', () =>
      b.run(1, async () => {
        expect([a.getStore(), b.getStore()]).toEqual(['outer', 1]);
        await a.run('inner', async () => {
          await sleep(1);
          expect([a.getStore(), b.getStore()]).toEqual(['inner', 1]);
        });
        expect([a.getStore(), b.getStore()]).toEqual(['outer', 1]);
        b.exit(() => expect([a.getStore(), b.getStore()]).toEqual(['outer', undefined]));
        a.exit(() => expect([a.getStore(), b.getStore()]).toEqual([undefined, 1]));
        expect([a.getStore(), b.getStore()]).toEqual(['outer', 1]);
      }),
    );
    expect([a.getStore(), b.getStore()]).toEqual([undefined, undefined]);
  });

  it('concurrent paths keep their own values; a throw restores the caller’s', async () => {
    const path = (n: number) =>
      b.run(n, async () => {
        for (let i = 0; i < 5; i++) {
          await sleep(Math.random() * 3);
          expect(b.getStore()).toBe(n);
        }
        return n;
      });
    expect(await Promise.all([1, 2, 3, 4].map(path))).toEqual([1, 2, 3, 4]);
    b.run(7, () => {
      expect(() =>
        b.run(8, () => {
          throw new Error('boom');
        }),
      ).toThrow('boom');
      expect(b.getStore()).toBe(7);
    });
  });
});
