import { route, type RestRoute } from '../route.ts';
import { arr, dataOf, int, money, nullable, num, obj, ref, str } from '../schemas.ts';

/** Reference-data lists: `{data: [...]}`, unpaginated, scoped to the token's tenant. */
function list(
  opts: Pick<RestRoute, 'operationId' | 'path' | 'summary' | 'operation'> & {
    field: string;
    item: string;
    map: (row: any) => unknown;
    queryParams?: RestRoute['queryParams'];
    toVariables?: RestRoute['toVariables'];
  },
): RestRoute {
  return route({
    operationId: opts.operationId,
    method: 'GET',
    path: opts.path,
    summary: opts.summary,
    tag: 'Reference data',
    scopes: ['read'],
    idempotent: false,
    operation: opts.operation,
    queryParams: opts.queryParams,
    toVariables: opts.toVariables ?? (() => ({})),
    toResponse: (data) => ({ status: 200, body: { data: (data[opts.field] as unknown[]).map(opts.map) } }),
    response: { status: 200, description: opts.summary, schema: dataOf(arr(ref(opts.item))) },
    errors: [],
  });
}

const staff = (u: any) => ({
  id: u.databaseId,
  name: u.name,
  email: u.email,
  phone: u.phone,
  role: u.role,
  code: u.code,
  branch_id: u.branchId,
});

export const referenceSchemas = {
  Insurer: obj({
    id: int(),
    name: str(),
    legal_name: str(),
    registry_member_id: int('Member company id at the certificate registry'),
    commission_rate_bps: int('Basis points'),
    status: str('`active` occurs'),
    monogram: str(),
  }),
  Branch: obj({ id: int(), code: str(), name: str(), city: str() }),
  User: obj({
    id: int(),
    name: str(),
    email: str(),
    phone: str(),
    role: str('account_exec or agent'),
    code: nullable(str('Agent code, what X-Agent-Code expects')),
    branch_id: nullable(int()),
  }),
  Levy: obj({
    id: int(),
    code: str('TL, PHCF, SD …'),
    name: str(),
    basis: { type: 'string', enum: ['percent', 'flat'] },
    rate_bps: nullable(int('Percent items, else null')),
    rate_percent: nullable(num('Percent items, else null')),
    ...money('amount', true),
  }),
  MotorBenefit: obj({ id: str('Stable hash of the name'), name: str() }),
  ProductLine: obj({ code: str(), name: str(), quote_endpoint: str('Path that prices this line') }),
  StandardProduct: obj({
    id: int(),
    code: str(),
    name: str(),
    description: str(),
    brochure_url: nullable(str()),
    product_line: str(),
  }),
};

export const referenceRoutes: RestRoute[] = [
  list({
    operationId: 'listInsurers',
    path: '/insurers',
    summary: 'Insurers on the panel',
    operation: 'Insurers',
    field: 'insurers',
    item: 'Insurer',
    queryParams: [
      {
        name: 'search',
        in: 'query',
        required: false,
        schema: str(),
        description: 'Case-insensitive match on short or legal name',
      },
    ],
    toVariables: ({ query }) => ({ search: query.get('search') }),
    map: (i) => ({
      id: i.databaseId,
      name: i.name,
      legal_name: i.legalName,
      registry_member_id: i.registryMemberId,
      commission_rate_bps: i.commissionRateBps,
      status: i.status,
      monogram: i.monogram,
    }),
  }),
  list({
    operationId: 'listBranches',
    path: '/branches',
    summary: 'Branches',
    operation: 'Branches',
    field: 'branches',
    item: 'Branch',
    map: (b) => ({ id: b.databaseId, code: b.code, name: b.name, city: b.city }),
  }),
  list({
    operationId: 'listRiskManagers',
    path: '/risk-managers',
    summary: 'Risk managers (account executives)',
    operation: 'RiskManagers',
    field: 'riskManagers',
    item: 'User',
    map: staff,
  }),
  list({
    operationId: 'listSalesPeople',
    path: '/sales-people',
    summary: 'Sales people (agents)',
    operation: 'SalesPeople',
    field: 'salesPeople',
    item: 'User',
    map: staff,
  }),
  list({
    operationId: 'listTaxes',
    path: '/policy/taxes',
    summary: 'Levies and duties added to every premium',
    operation: 'Levies',
    field: 'levies',
    item: 'Levy',
    map: (l) => ({
      id: l.databaseId,
      code: l.code,
      name: l.name,
      basis: l.basis,
      rate_bps: l.rateBps,
      rate_percent: l.ratePercent,
      amount: l.amount?.amount ?? null,
      amount_minor: l.amount?.amountMinor ?? null,
    }),
  }),
  list({
    operationId: 'listMotorBenefits',
    path: '/motor/benefits',
    summary: 'Distinct motor benefits',
    operation: 'MotorBenefits',
    field: 'motorBenefits',
    item: 'MotorBenefit',
    map: (b) => ({ id: b.id, name: b.name }),
  }),
  route({
    operationId: 'listProducts',
    method: 'GET',
    path: '/products',
    summary: 'Product lines and the standard-product catalogue',
    tag: 'Reference data',
    scopes: ['read'],
    idempotent: false,
    operation: 'Products',
    toVariables: () => ({}),
    toResponse: ({ products }) => ({
      status: 200,
      body: {
        data: {
          lines: products.lines.map((l: any) => ({ code: l.code, name: l.name, quote_endpoint: l.quoteEndpoint })),
          standard_products: products.standardProducts.map((p: any) => ({
            id: p.databaseId,
            code: p.code,
            name: p.name,
            description: p.description,
            brochure_url: p.brochureUrl,
            product_line: p.productLine,
          })),
        },
      },
    }),
    response: {
      status: 200,
      description: 'Products',
      schema: dataOf(obj({ lines: arr(ref('ProductLine')), standard_products: arr(ref('StandardProduct')) })),
    },
    errors: [],
  }),
];
