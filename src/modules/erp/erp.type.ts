import type { ObjectRef } from '@pothos/core';

type SchemaTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
import { builder } from '../../graphql/builder.ts';
import type { ErpPage, ErpPageArgs, ErpPageMeta } from './erp.service.ts';
import { erpService } from './erp.service.ts';
import { ERP_PAGE_SIZE } from './erp-window.ts';
import { ErpClaimRef, ErpClientRef, ErpCreditNoteRef, ErpPolicyRef, ErpReceiptRef } from './erp-records.type.ts';

/**
 * The ERP exports' root fields (docs/erp-exports.md "ERP exports"): scope read, staff only (an agent is refused with
 * actor_forbidden). Each answers one page of its export in (sync instant, id) order within (updatedSince, until].
 */
const ROOT_SCOPES = { $all: { read: true, staff: true } } as const;

const ErpPageMetaRef = builder.objectRef<ErpPageMeta>('ErpPageMeta').implement({
  description:
    'Where a page stands in its sync. `until` is the sync window’s end, fixed by the first page: pass it (with ' +
    '`nextCursor` as `after`) for the next page, and use it as `updatedSince` of the next sync.',
  fields: (t) => ({
    page: t.exposeInt('page', { description: 'This page’s number, 1 first.' }),
    perPage: t.exposeInt('perPage', { description: 'Records per page asked (or the default).' }),
    count: t.exposeInt('count', { description: 'Records in this page' }),
    hasMore: t.exposeBoolean('hasMore', { description: 'True when another page follows (ask with nextCursor).' }),
    updatedSince: t.expose('updatedSince', {
      description: 'The window’s start as asked (exclusive); null for a full export.',
      type: 'DateTime',
      nullable: true,
    }),
    until: t.expose('until', {
      description: 'The window’s end (inclusive), fixed by the first page.',
      type: 'DateTime',
    }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'The next page’s `after`; null at the end',
    }),
  }),
});

function pageType<Rec>(name: string, record: ObjectRef<SchemaTypes, Rec>) {
  return builder.objectRef<ErpPage<Rec>>(name).implement({
    description: 'One page of an ERP export: its records, in (sync instant, id) order, and where the page stands.',
    fields: (t) => ({
      records: t.expose('records', { description: 'The records of this page.', type: [record] }),
      meta: t.expose('meta', { description: 'Paging and the sync window.', type: ErpPageMetaRef }),
    }),
  });
}

const ClientsPage = pageType('ErpClientsPage', ErpClientRef);
const PoliciesPage = pageType('ErpPoliciesPage', ErpPolicyRef);
const ClaimsPage = pageType('ErpClaimsPage', ErpClaimRef);
const ReceiptsPage = pageType('ErpReceiptsPage', ErpReceiptRef);
const CreditNotesPage = pageType('ErpCreditNotesPage', ErpCreditNoteRef);

builder.queryFields((t) => {
  const args = {
    page: t.arg.int({ description: 'Page number, 1 first (a later page needs `after`)' }),
    perPage: t.arg.int({ description: `Records per page: default ${ERP_PAGE_SIZE.default}, 1–${ERP_PAGE_SIZE.max}` }),
    updatedSince: t.arg({ type: 'DateTime', description: 'Records changed after this instant (exclusive)' }),
    until: t.arg({ type: 'DateTime', description: 'The window’s end, from the first page’s meta.until' }),
    after: t.arg.string({ description: 'Keyset cursor: the previous page’s meta.nextCursor' }),
  };
  const describe = (what: string, col: string) =>
    `${what}, ${col}-ordered, one page of the ERP export (staff only, scope read).`;
  const a = (x: ErpPageArgs) => x;
  return {
    erpClients: t.field({
      type: ClientsPage,
      authScopes: ROOT_SCOPES,
      description: describe('Clients', 'updated_at'),
      args,
      resolve: (_r, x, ctx) => erpService.clients(ctx, a(x)),
    }),
    erpPolicies: t.field({
      type: PoliciesPage,
      authScopes: ROOT_SCOPES,
      description: describe('Policies', 'updated_at'),
      args,
      resolve: (_r, x, ctx) => erpService.policies(ctx, a(x)),
    }),
    erpClaims: t.field({
      type: ClaimsPage,
      authScopes: ROOT_SCOPES,
      description: describe('Claims', 'updated_at'),
      args,
      resolve: (_r, x, ctx) => erpService.claims(ctx, a(x)),
    }),
    erpReceipts: t.field({
      type: ReceiptsPage,
      authScopes: ROOT_SCOPES,
      description: describe('Receipts (immutable)', 'created_at'),
      args,
      resolve: (_r, x, ctx) => erpService.receipts(ctx, a(x)),
    }),
    erpCreditNotes: t.field({
      type: CreditNotesPage,
      authScopes: ROOT_SCOPES,
      description: describe('Credit notes (immutable)', 'created_at'),
      args,
      resolve: (_r, x, ctx) => erpService.creditNotes(ctx, a(x)),
    }),
  };
});
