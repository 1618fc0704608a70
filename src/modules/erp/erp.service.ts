import type { Context } from '../../context.ts';
import { AppError } from '../../lib/problem.ts';
import { pageReferences } from '../reference/references.ts';
import { type ErpPageArgs, type ErpPageMeta, pageMeta, settleWindow } from './erp-window.ts';
import { erpClaims } from './exports/claims.ts';
import { erpClients } from './exports/clients.ts';
import { erpCreditNotes } from './exports/credit-notes.ts';
import { erpPolicies } from './exports/policies.ts';
import { erpReceipts } from './exports/receipts.ts';
import { readPage, type ErpSource } from './exports/source.ts';

export type { ErpPageArgs, ErpPageMeta } from './erp-window.ts';
export type { ErpAgent } from './exports/agents.ts';
export type { ErpClaimRecord } from './exports/claims.ts';
export type { ErpClientRecord } from './exports/clients.ts';
export type { ErpCreditNoteRecord } from './exports/credit-notes.ts';
export type { ErpPolicyRecord } from './exports/policies.ts';
export type { ErpReceiptRecord } from './exports/receipts.ts';

/** The exports by kind (docs/erp-exports.md "ERP exports"). */
export const ERP_SOURCES = {
  clients: erpClients,
  policies: erpPolicies,
  claims: erpClaims,
  receipts: erpReceipts,
  creditNotes: erpCreditNotes,
} as const;
export type ErpKind = keyof typeof ERP_SOURCES;

export interface ErpPage<Rec> {
  records: Rec[];
  meta: ErpPageMeta;
}

/**
 * Staff only: an export is the organisation's whole book (every client's personal data), and an agent's own-records
 * reach is not what an accounting system syncs. Agents are refused whatever their scopes (403 actor_forbidden).
 */
function requireStaff(ctx: Context): void {
  const p = ctx.principal;
  if (!p) throw new AppError('unauthenticated', { detail: 'Send Authorization: Bearer <access token>' });
  if (p.actor?.ownRecordsOnly) throw new AppError('actor_forbidden', { detail: 'Agents may not read the ERP exports' });
}

/**
 * One page of an export: the window settled (the watermark fixed on the first page, the cursor checked), then the
 * records after the cursor in (sync instant, id) order, in one tenant transaction.
 */
async function page<Rec>(ctx: Context, source: ErpSource<Rec>, args: ErpPageArgs): Promise<ErpPage<Rec>> {
  requireStaff(ctx);
  const tenantId = ctx.principal!.tenant.id;
  const refs = await pageReferences(ctx);
  return ctx.tx(
    async (tx) => {
      const w = await settleWindow(tx, args);
      const { rows, meta } = pageMeta(w, await readPage(tx, source, w, tenantId, refs), source.key);
      return { records: rows, meta };
    },
    { readOnly: true },
  );
}

export const erpService = {
  page,
  clients: (ctx: Context, a: ErpPageArgs) => page(ctx, erpClients, a),
  policies: (ctx: Context, a: ErpPageArgs) => page(ctx, erpPolicies, a),
  claims: (ctx: Context, a: ErpPageArgs) => page(ctx, erpClaims, a),
  receipts: (ctx: Context, a: ErpPageArgs) => page(ctx, erpReceipts, a),
  creditNotes: (ctx: Context, a: ErpPageArgs) => page(ctx, erpCreditNotes, a),
};
