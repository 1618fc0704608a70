import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { ParameterObject } from 'openapi3-ts/oas31';
import {
  ErpClaimsDocument,
  ErpClientsDocument,
  ErpCreditNotesDocument,
  ErpPoliciesDocument,
  ErpReceiptsDocument,
  type ErpPageMetaFieldsFragment,
} from '../generated/operations.ts';
import {
  ERP_CSV_COLUMNS,
  erpClaimToRest,
  erpClientToRest,
  erpCreditNoteToRest,
  erpCsvCells,
  erpEnvelope,
  erpPolicyToRest,
  erpReceiptToRest,
  erpVariables,
  type ErpRecord,
} from '../mappers/erp.ts';
import { ERP_MAX_PAGE } from '../../src/modules/erp/vocabulary.ts';
import { type AnyRoute, route } from '../route.ts';
import { dateTimeInput, queryParam, str } from '../schemas/builders.ts';
import { erpPage } from '../schemas/erp.ts';

/** docs/erp-exports.md "ERP exports": the window, the watermark and the cursor are the core's (src/modules/erp/). */
const PARAMS: ParameterObject[] = [
  queryParam('per_page', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }, 'Records per page'),
  queryParam(
    'page',
    { type: 'integer', minimum: 1, maximum: ERP_MAX_PAGE, default: 1 },
    'Page number; a page after the first needs cursor',
  ),
  queryParam('updated_since', dateTimeInput(), 'Changed after this instant, exclusive (RFC 3339 date-time)'),
  queryParam('until', dateTimeInput(), 'The window’s end: meta.until of the first page (RFC 3339 date-time)'),
  queryParam('cursor', str(), 'The keyset position: from links.next'),
];

type Page<F> = { records: F[]; meta: ErpPageMetaFieldsFragment };

interface Spec<R, F> {
  operationId: string;
  path: string;
  key: string;
  record: string;
  kind: keyof typeof ERP_CSV_COLUMNS;
  what: string;
  operation: TypedDocumentNode<R, ReturnType<typeof erpVariables> & Record<string, unknown>>;
  pick: (d: R) => Page<F>;
  map: (f: F) => ErpRecord;
}

function erpRoute<R, F>(s: Spec<R, F>): AnyRoute {
  const records = (d: R) => ({ records: s.pick(d).records.map(s.map), meta: s.pick(d).meta });
  const columns = ERP_CSV_COLUMNS[s.kind];
  return route({
    operationId: s.operationId,
    method: 'GET',
    path: s.path,
    tag: 'ERP exports',
    summary: `ERP export of ${s.what}: flat records for incremental sync`,
    description:
      'Scope read, staff only (an agent is refused with 403 actor_forbidden). Records changed in (updated_since, until] ' +
      'ordered by (sync instant, id); follow links.next to the end, then start the next sync with updated_since = ' +
      'meta.until. With `Accept: text/csv` the whole window from this position is streamed as one CSV file ' +
      '(per_page is the batch size; the window’s end is in the X-Sync-Until header).',
    scopes: ['read'],
    idempotent: false,
    queryParams: PARAMS,
    operation: s.operation,
    fieldNames: { after: 'cursor' },
    toVariables: erpVariables,
    toResponse: (d, input) => ({ status: 200, body: erpEnvelope(s.key, records(d), input) }),
    csv: {
      filename: `${s.key}.csv`,
      columns,
      description: 'RFC 4180, CRLF; cells starting with = + - @ (text) are prefixed with a quote',
      rows: (d) => s.pick(d).records.map((f) => erpCsvCells(s.map(f), columns)),
      headers: (d) => ({ 'x-sync-until': s.pick(d).meta.until }),
      next: (d, v) => {
        const m = s.pick(d).meta;
        return m.hasMore ? { ...v, page: m.page + 1, until: m.until, after: m.nextCursor } : null;
      },
    },
    response: { status: 200, description: `A page of ${s.what}`, schema: erpPage(s.key, s.record) },
    errors: ['validation_failed', 'actor_forbidden'],
  });
}

export const erpRoutes: AnyRoute[] = [
  erpRoute({
    operationId: 'exportErpClients',
    path: '/erp/clients',
    key: 'clients',
    record: 'ErpClient',
    kind: 'clients',
    what: 'clients (by updated_at)',
    operation: ErpClientsDocument,
    pick: (d) => d.erpClients,
    map: erpClientToRest,
  }),
  erpRoute({
    operationId: 'exportErpPolicies',
    path: '/erp/policies',
    key: 'policies',
    record: 'ErpPolicy',
    kind: 'policies',
    what: 'policies (by updated_at)',
    operation: ErpPoliciesDocument,
    pick: (d) => d.erpPolicies,
    map: erpPolicyToRest,
  }),
  erpRoute({
    operationId: 'exportErpClaims',
    path: '/erp/claims',
    key: 'claims',
    record: 'ErpClaim',
    kind: 'claims',
    what: 'claims (by updated_at)',
    operation: ErpClaimsDocument,
    pick: (d) => d.erpClaims,
    map: erpClaimToRest,
  }),
  erpRoute({
    operationId: 'exportErpReceipts',
    path: '/erp/receipts',
    key: 'receipts',
    record: 'ErpReceipt',
    kind: 'receipts',
    what: 'receipts (immutable: by created_at)',
    operation: ErpReceiptsDocument,
    pick: (d) => d.erpReceipts,
    map: erpReceiptToRest,
  }),
  erpRoute({
    operationId: 'exportErpCreditNotes',
    path: '/erp/credit-notes',
    key: 'credit_notes',
    record: 'ErpCreditNote',
    kind: 'creditNotes',
    what: 'credit notes (immutable: by created_at)',
    operation: ErpCreditNotesDocument,
    pick: (d) => d.erpCreditNotes,
    map: erpCreditNoteToRest,
  }),
];
