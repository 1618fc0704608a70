import type { AppServices } from '../../../context.ts';
import type { DarajaCallbackItem } from '../../../ports/mobile-money.ts';
import { transitionPaymentRequest } from '../payment-request-state.ts';
import { applyRailResult, type SettleOutcome, shillingsToMinor } from '../settle.service.ts';
import { possibleOwners } from './owners.ts';
import { lineItems, pull, receipted, sameMsisdn } from './rail.ts';

/**
 * A request left `sending` past its call (the process died between the push and recording its acknowledgement, or
 * the rail never answered): the rail's statement says whether its prompt was paid. Paid → receipted from the
 * statement line, only when no other request on the paybill, in any organisation, could own that line
 * (confirm/owners.ts; when one could, both stay in doubt for their own callbacks, never failed meanwhile); not on the statement once MPESA_PROMPT_TTL_SECONDS have passed → failed (the prompt, if it ever
 * reached the phone, has expired); otherwise it stays in doubt for the next look.
 */
export async function resolveInDoubt(
  app: AppServices,
  paymentRequestId: string,
  now = new Date(),
): Promise<SettleOutcome | 'in_doubt' | 'expired' | 'not_in_doubt'> {
  const pr = await app.db.system((tx) => tx.paymentRequest.findUnique({ where: { id: paymentRequestId } }));
  if (!pr || pr.status !== 'sending' || (pr.sendingUntil && pr.sendingUntil > now)) return 'not_in_doubt';
  const lines = await pull(
    app,
    pr.shortcode,
    new Date(pr.createdAt.getTime() - 60_000),
    new Date(now.getTime() + 60_000),
  );
  let ambiguous = false;
  for (const line of lines) {
    const amountMinor = shillingsToMinor(line.amount);
    if (
      !sameMsisdn(line, pr.phone) ||
      line.billreference !== pr.accountReference ||
      amountMinor == null ||
      amountMinor > pr.amountMinor
    )
      continue;
    if (await receipted(app, line.transactionId)) continue;
    // Another organisation's request (or another of ours) could own this line as well: it is no proof of ours.
    const owners = await possibleOwners(app, pr.shortcode, line);
    if (owners.length !== 1 || owners[0].id !== pr.id) {
      ambiguous = true;
      continue;
    }
    return applyRailResult(
      app,
      pr.tenantId,
      pr.id,
      { resultCode: 0, resultDesc: 'Confirmed from the paybill statement', items: lineItems(line) },
      'statement',
    );
  }
  // A paid line that may be its own keeps it in doubt past the prompt's life: never failed while its money may be in.
  if (ambiguous || now.getTime() - pr.createdAt.getTime() < app.config.mpesaPromptTtlSeconds * 1000) return 'in_doubt';
  await app.db.tenant(pr.tenantId, (tx) =>
    transitionPaymentRequest(tx, pr.id, 'sending', 'failed', {
      resultDesc: `Not confirmed: the rail never acknowledged this prompt and no payment for it reached the statement within ${app.config.mpesaPromptTtlSeconds} s`,
      resolvedVia: 'statement',
      resolvedAt: new Date(),
      sendingUntil: null,
    }),
  );
  return 'expired';
}

/** A prompt the rail confirms paid (its status query, after a callback) that no request recorded by its checkout id. */
export interface PaidPrompt {
  checkoutRequestId: string;
  merchantRequestId: string | null;
  ref: string;
  phone: string;
  amountMinor: bigint;
  items: DarajaCallbackItem[];
}

/**
 * The rail's answer to a push whose acknowledgement was never recorded (in doubt: the process died, or the rail call
 * timed out, after the prompt reached the rail) is matched to that request by what the push sent: the paybill
 * statement line with this receipt number names our AccountReference, and the phone and amount fit a request still
 * `sending`. Matched, the request takes the rail's ids and is settled ('callback'); money already receipted (the
 * statement settled it first) only gives its request the ids ('duplicate'). 'in_doubt' while a request could be its
 * own but the statement does not show the line yet (wait: never filed as unmatched money meanwhile); null when no
 * request of ours is in doubt for it. Only this organisation's requests are candidates: the callback came to its own
 * CallBackURL and the rail confirmed the checkout id, so no other organisation's request on a shared paybill sent
 * it. 'ambiguous' when two of its requests in doubt could have (same phone, account, an amount fitting both): neither
 * takes it (confirm/owners.ts, the rule for every match by what a line says).
 */
export async function matchPaidPrompt(
  app: AppServices,
  tenantId: number,
  paid: PaidPrompt,
  now = new Date(),
): Promise<SettleOutcome | 'in_doubt' | 'ambiguous' | null> {
  const receipt = await app.db.tenant(tenantId, (tx) =>
    tx.receipt.findFirst({ where: { transactionRef: paid.ref }, select: { paymentRequestId: true } }),
  );
  if (receipt) {
    if (receipt.paymentRequestId) await attachRailIds(app, tenantId, receipt.paymentRequestId, paid);
    return 'duplicate';
  }
  const candidates = await app.db.tenant(tenantId, (tx) =>
    tx.paymentRequest.findMany({
      where: {
        tenantId,
        status: 'sending',
        checkoutRequestId: null,
        phone: paid.phone,
        amountMinor: { gte: paid.amountMinor },
      },
      orderBy: { createdAt: 'asc' },
    }),
  );
  if (!candidates.length) return null;
  for (const shortcode of new Set(candidates.map((c) => c.shortcode))) {
    const from = Math.min(...candidates.map((c) => c.createdAt.getTime())) - 60_000;
    const line = (await pull(app, shortcode, new Date(from), new Date(now.getTime() + 60_000))).find(
      (l) => l.transactionId === paid.ref,
    );
    if (!line) continue;
    const mine = candidates.filter(
      (c) => c.shortcode === shortcode && c.accountReference === line.billreference && sameMsisdn(line, c.phone),
    );
    if (!mine.length) return null;
    // Two of this organisation's requests in doubt could have sent it: the prompt names neither, so neither takes it.
    if (mine.length > 1) return 'ambiguous';
    const pr = mine[0];
    await attachRailIds(app, tenantId, pr.id, paid);
    return applyRailResult(
      app,
      tenantId,
      pr.id,
      { resultCode: 0, resultDesc: 'Confirmed by the status query (callback)', items: paid.items },
      'callback',
    );
  }
  return 'in_doubt';
}

/** The rail's ids on a request that never recorded them (its acknowledgement was lost); set once. */
async function attachRailIds(app: AppServices, tenantId: number, id: string, paid: PaidPrompt) {
  await app.db.tenant(tenantId, (tx) =>
    tx.paymentRequest.updateMany({
      where: { id, checkoutRequestId: null },
      data: { checkoutRequestId: paid.checkoutRequestId, merchantRequestId: paid.merchantRequestId },
    }),
  );
}
