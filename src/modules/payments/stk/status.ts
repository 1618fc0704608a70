import type { Context } from '../../../context.ts';
import { notFound } from '../../../lib/problem.ts';
import { confirmPrompt } from '../confirm/prompt.ts';
import { resolveInDoubt } from '../confirm/in-doubt.ts';
import { paymentRequestVisibility } from '../../access/payment.visibility.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The prompt's state, by checkout request id or by payment request id. A request pending past
 * MPESA_RECONCILE_AFTER_MS is first confirmed with the rail; one in doubt (`sending` past its call) is looked up on
 * the rail's statement.
 */
export async function stkPushStatus(ctx: Context, ref: string) {
  const p = ctx.principal!;
  const byId = UUID.test(ref);
  const find = () =>
    ctx.tx((tx) =>
      tx.paymentRequest.findFirst({
        where: { ...(byId ? { id: ref.toLowerCase() } : { checkoutRequestId: ref }), ...paymentRequestVisibility(p) },
      }),
    );
  let pr = await find();
  if (!pr) throw notFound('Payment request');
  const due = Date.now() - pr.createdAt.getTime() >= ctx.app.config.mpesaReconcileAfterMs;
  if (pr.status === 'pending' && due) {
    await confirmPrompt(ctx.app, pr.tenantId, pr.id).catch((err) =>
      ctx.log.warn({ err, payment_request_id: pr!.id }, 'rail query failed'),
    );
    pr = (await find())!;
  } else if (pr.status === 'sending' && pr.sendingUntil && pr.sendingUntil.getTime() <= Date.now()) {
    await resolveInDoubt(ctx.app, pr.id).catch((err) =>
      ctx.log.warn({ err, payment_request_id: pr!.id }, 'statement lookup failed'),
    );
    pr = (await find())!;
  }
  const receipt = pr.receiptId ? await ctx.tx((tx) => tx.receipt.findUnique({ where: { id: pr.receiptId! } })) : null;
  return { ...pr, receiptNo: receipt?.receiptNo ?? null };
}
