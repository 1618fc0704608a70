import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { now as clockNow } from '../../../lib/clock.ts';
import { InvalidStateError } from '../../../lib/problem.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { assertIpfMove, transitionIpf } from '../ipf-state.ts';
import { requireFinanceOffered } from '../offered.ts';
import {
  type ApplicationRow,
  checkPolicyFinanceable,
  ipfActor,
  lockVisibleApplication,
  requireNotExpired,
} from './common.ts';

/**
 * draft → submitted: the application goes to the lender. Its decision is queued once the transaction commits (the
 * job reads what was written); a job lost between commit and queueing is sent again by the minute sweep.
 */
export async function submitIpfApplication(ctx: Context, uuid: string): Promise<ApplicationRow> {
  const p = ctx.principal!;
  requireFinanceOffered(p);
  requireAbility(p, 'policies.create');
  const submitted = await ctx.tx(async (tx) => {
    const a = await lockVisibleApplication(ctx, tx, uuid);
    await submitLocked(ctx, tx, a);
    return a;
  });
  await ctx.afterCommit(() => queueDecision(ctx, submitted.id));
  return submitted;
}

/** Submits a locked (or just created) draft in `tx`: still in time, its policy still waiting for the premium. */
export async function submitLocked(ctx: Context, tx: Tx, a: ApplicationRow): Promise<void> {
  assertIpfMove('application', a.status, 'submitted');
  requireNotExpired(a, clockNow());
  const policy = await tx.policy.findUniqueOrThrow({ where: { id: a.policyId } });
  checkPolicyFinanceable(policy);
  const moved = await transitionIpf(tx, 'application', a.id, a.status, 'submitted', {
    tenantId: a.tenantId,
    reason: 'Submitted to the lender',
    actor: ipfActor(ctx),
  });
  if (!moved) throw new InvalidStateError('The application changed meanwhile; read it again');
  await recordAudit(ctx, tx, a.tenantId, {
    action: 'ipf_application.submitted',
    entityType: 'ipf_application',
    entityId: a.applicationNo,
  });
}

/** Hands the decision to the lender's queue (where pg-boss runs; elsewhere the minute sweep picks it up). */
export async function queueDecision(ctx: Context, applicationId: number): Promise<void> {
  await ctx.app.lender?.queueDecision(applicationId);
}
