import type { AppServices } from '../../../context.ts';
import { normalisePhone } from '../../../lib/identifiers.ts';
import type { DarajaPulledTransaction } from '../../../ports/mobile-money.ts';
import { recordUnmatched, shillingsToMinor } from '../settle.service.ts';
import { resolveInDoubt } from './in-doubt.ts';
import { confirmPrompt } from './prompt.ts';
import { logAmbiguousLine, possibleOwners } from './owners.ts';
import { lineDate, pull, receipted, statementGraceMs } from './rail.ts';

/**
 * The paybill statement against our records: every paid line is receipted, attached to the request it answers
 * (confirmed by query, or from the statement for a request in doubt), or recorded as unmatched money held for
 * refund (payment.unmatched). Lines younger than the grace are left for the next run; so is a line more than one
 * request on the paybill could own (any organisation: confirm/owners.ts), logged for manual review until a callback
 * settles all but one of them.
 */
export async function reconcileStatement(
  app: AppServices,
  now = new Date(),
): Promise<{ attached: number; unmatched: number }> {
  const grace = statementGraceMs(app);
  const channels = await app.db.system((tx) =>
    tx.mpesaChannel.findMany({ select: { tenantId: true, shortcode: true, statementPulledTo: true, createdAt: true } }),
  );
  const byShortcode = new Map<string, typeof channels>();
  for (const c of channels) byShortcode.set(c.shortcode, [...(byShortcode.get(c.shortcode) ?? []), c]);
  let attached = 0;
  let unmatched = 0;
  for (const [shortcode, chans] of byShortcode) {
    const pulledTo = Math.min(...chans.map((c) => (c.statementPulledTo ?? c.createdAt).getTime()));
    const lines = await pull(app, shortcode, new Date(pulledTo - 15 * 60_000), now);
    for (const line of lines) {
      if (await receipted(app, line.transactionId)) continue;
      const r = await settleLine(
        app,
        shortcode,
        chans.map((c) => c.tenantId),
        line,
        now,
        grace,
      );
      if (r === 'attached') attached += 1;
      if (r === 'unmatched') unmatched += 1;
    }
    await app.db.system((tx) =>
      tx.mpesaChannel.updateMany({
        where: { shortcode },
        data: { statementPulledTo: new Date(now.getTime() - grace) },
      }),
    );
  }
  return { attached, unmatched };
}

async function settleLine(
  app: AppServices,
  shortcode: string,
  tenantIds: number[],
  line: DarajaPulledTransaction,
  now: Date,
  grace: number,
) {
  const amountMinor = shillingsToMinor(line.amount);
  const phone = normalisePhone(String(line.msisdn));
  if (amountMinor == null || !phone) return 'skipped';
  // Every organisation on this paybill: a line two requests could own is attributed to neither (confirm/owners.ts).
  const owners = await possibleOwners(app, shortcode, line);
  if (owners.length > 1) {
    logAmbiguousLine(app, line, owners);
    return 'skipped';
  }
  const candidate = owners[0];
  if (candidate?.status === 'pending') {
    // Young prompts are the callback's (or the status query's) to settle, as for the reconcile step.
    if (now.getTime() - candidate.createdAt.getTime() < app.config.mpesaReconcileAfterMs) return 'skipped';
    const r = await confirmPrompt(app, candidate.tenantId, candidate.id);
    return r === 'settled' ? 'attached' : 'skipped';
  }
  if (candidate) {
    const r = await resolveInDoubt(app, candidate.id, now);
    return r === 'settled' ? 'attached' : 'skipped';
  }
  const when = lineDate(line) ?? now;
  if (now.getTime() - when.getTime() < grace) return 'skipped';
  // A paybill belongs to one organisation; where several share one (the sandbox's), the one the phone paid last.
  const recent = await app.db.system((tx) =>
    tx.paymentRequest.findFirst({
      where: { tenantId: { in: tenantIds }, phone },
      orderBy: { createdAt: 'desc' },
      select: { tenantId: true },
    }),
  );
  const tenantId = recent?.tenantId ?? Math.min(...tenantIds);
  const recorded = await app.db.tenant(tenantId, async (tx) => {
    if (await tx.receipt.findFirst({ where: { transactionRef: line.transactionId } })) return false;
    return recordUnmatched(app, tx, tenantId, {
      transactionRef: line.transactionId,
      checkoutRequestId: null,
      phone,
      amountMinor,
      accountReference: line.billreference,
      paidAt: when,
      foundVia: 'statement',
      reason: 'a payment on the paybill statement that no payment request answers',
    });
  });
  return recorded ? 'unmatched' : 'skipped';
}
