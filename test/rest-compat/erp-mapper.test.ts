import { describe, expect, it } from 'vitest';
import {
  ERP_CSV_COLUMNS,
  erpClientToRest,
  erpCsvCells,
  erpEnvelope,
  erpLinks,
  erpVariables,
} from '../../rest-compat/mappers/erp.ts';
import type { RestInput } from '../../rest-compat/route.ts';

const input = (q: string): RestInput => {
  const url = new URL(`http://x/api/v1/erp/clients?${q}`);
  return { url, params: {}, query: url.searchParams, body: undefined };
};
const meta = {
  page: 1,
  perPage: 2,
  count: 2,
  hasMore: true,
  updatedSince: '2026-06-01T00:00:00.000Z',
  until: '2026-06-02T00:00:00.000Z',
  nextCursor: 'abc',
};
const client = {
  id: 7,
  clientNo: 'C-000007',
  type: 'individual',
  name: 'Wanjiru',
  idNo: null,
  kraPin: null,
  phone: '254712345678',
  email: null,
  dateOfBirth: '1990-01-02',
  physicalAddress: null,
  branch: 'Nairobi',
  sector: null,
  businessSource: null,
  kycStatus: 'unverified',
  onboardedVia: 'api',
  createdAt: '2026-06-01T10:00:00.000Z',
  updatedAt: '2026-06-01T11:00:00.000Z',
  agents: [
    { id: 3, name: 'Otieno', role: 'sales_person', userRole: 'agent', code: 'AG-01' },
    { id: 1, name: 'Admin', role: 'created_by', userRole: 'admin', code: null },
  ],
};

describe('ERP mappers (rest-compat/mappers/erp.ts)', () => {
  it('reads the query parameters as the operation variables, values as sent', () => {
    expect(erpVariables(input('per_page=5&page=2&updated_since=2026-06-01T00:00:00Z&until=u&cursor=c'))).toEqual({
      page: 2,
      perPage: 5,
      updatedSince: '2026-06-01T00:00:00Z',
      until: 'u',
      after: 'c',
    });
    expect(erpVariables(input('per_page=x')).perPage).toBeNaN();
  });

  it('links.next continues the same window after the cursor; null at the end', () => {
    expect(erpLinks(meta, input('per_page=2&updated_since=2026-06-01T00:00:00Z&x=1'))).toEqual({
      self: '/api/v1/erp/clients?per_page=2&updated_since=2026-06-01T00:00:00Z&x=1',
      next:
        '/api/v1/erp/clients?x=1&page=2&per_page=2&updated_since=2026-06-01T00%3A00%3A00.000Z' +
        '&until=2026-06-02T00%3A00%3A00.000Z&cursor=abc',
    });
    expect(erpLinks({ ...meta, hasMore: false, nextCursor: null }, input('')).next).toBeNull();
  });

  it('wraps records as {status, <key>, meta, links} with a flat record and agents[]', () => {
    const body = erpEnvelope('clients', { records: [erpClientToRest(client)], meta }, input(''));
    expect(Object.keys(body)).toEqual(['status', 'clients', 'meta', 'links']);
    expect(body.status).toBe('success');
    expect(body.meta).toEqual({
      page: 1,
      per_page: 2,
      count: 2,
      has_more: true,
      updated_since: meta.updatedSince,
      until: meta.until,
      next_cursor: 'abc',
    });
    expect(body.clients[0]).toMatchObject({ client_no: 'C-000007', date_of_birth: '1990-01-02', branch: 'Nairobi' });
    expect(body.clients[0].agents[0]).toEqual({
      id: 3,
      name: 'Otieno',
      role: 'sales_person',
      user_role: 'agent',
      code: 'AG-01',
    });
  });

  it('CSV columns are the JSON record’s keys; agents join into one cell', () => {
    const rec = erpClientToRest(client);
    expect(ERP_CSV_COLUMNS.clients).toEqual(Object.keys(rec));
    const cells = erpCsvCells(rec, ERP_CSV_COLUMNS.clients);
    expect(cells[0]).toBe(7);
    expect(cells.at(-1)).toBe('sales_person:Otieno[AG-01]; created_by:Admin');
    for (const cols of Object.values(ERP_CSV_COLUMNS)) expect(cols.at(-1)).toBe('agents');
  });
});
