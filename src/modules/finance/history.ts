import DataLoader from 'dataloader';
import type { Context } from '../../context.ts';
import type { IpfStateHistory } from '../../generated/prisma/client.ts';

type Entity = 'application' | 'loan';

const loaders = new WeakMap<Context, Map<Entity, DataLoader<number, IpfStateHistory[]>>>();

/**
 * The status changes of an application or a loan, oldest first (ipf_state_history). Batched per request: a list of
 * fifty loans asking for `history` reads it in one statement, not fifty. The rows are read in the caller's tenant
 * transaction (row-level security); the caller has already seen the application or loan.
 */
export function ipfHistory(ctx: Context, entity: Entity, id: number): Promise<IpfStateHistory[]> {
  let byEntity = loaders.get(ctx);
  if (!byEntity) loaders.set(ctx, (byEntity = new Map<Entity, DataLoader<number, IpfStateHistory[]>>()));
  let loader = byEntity.get(entity);
  if (!loader) {
    loader = new DataLoader<number, IpfStateHistory[]>(async (ids) => {
      const rows = await ctx.tx((tx) =>
        tx.ipfStateHistory.findMany({ where: { entity, entityId: { in: [...ids] } }, orderBy: { id: 'asc' } }),
      );
      return ids.map((i) => rows.filter((r) => r.entityId === i));
    });
    byEntity.set(entity, loader);
  }
  return loader.load(id);
}
