import type { Database } from '../../db/client.ts';

/**
 * Housekeeping across every tenant (a system operation): expired access tokens and expired Idempotency-Key records
 * are deleted. Idempotent: running it twice removes nothing more.
 */
export async function purgeExpired(
  db: Database,
  now = new Date(),
): Promise<{ tokens: number; idempotencyKeys: number }> {
  return db.system(async (tx) => {
    const tokens = await tx.accessToken.deleteMany({
      where: { expiresAt: { lt: new Date(now.getTime() - 86_400_000) } },
    });
    const keys = await tx.idempotencyKey.deleteMany({ where: { expiresAt: { lt: now } } });
    return { tokens: tokens.count, idempotencyKeys: keys.count };
  });
}
