import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { ParameterObject } from 'openapi3-ts/oas31';
import {
  BranchesDocument,
  BusinessSourcesDocument,
  InsurersDocument,
  LeviesDocument,
  MotorBenefitsDocument,
  ProductsDocument,
  ProspectTypesDocument,
  RiskManagersDocument,
  SalesPeopleDocument,
} from '../generated/operations.ts';
import {
  branchToRest,
  businessSourceToRest,
  insurerToRest,
  levyToRest,
  motorBenefitToRest,
  productsToRest,
  prospectTypeToRest,
  staffToRest,
} from '../mappers/reference.ts';
import { type AnyRoute, type RestRoute, type Resolved, route, type SentInput } from '../route.ts';
import { arr, dataOf, ref } from '../schemas/builders.ts';
import { productsResponse } from '../schemas/reference.ts';

/** Reference-data lists: `{data: [...]}`, unpaginated, scoped to the token's tenant. */
function list<R, V, TV extends SentInput<V>>(opts: {
  operationId: string;
  path: string;
  summary: string;
  operation: TypedDocumentNode<R, V>;
  /** The component schema of an item. */
  item: string;
  queryParams?: ParameterObject[];
  toVariables: RestRoute<R, V, unknown, TV>['toVariables'];
  rows: (data: Resolved<R>) => unknown[];
}): AnyRoute {
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
    toVariables: opts.toVariables,
    toResponse: (data) => ({ status: 200, body: { data: opts.rows(data) } }),
    response: { status: 200, description: opts.summary, schema: dataOf(arr(ref(opts.item))) },
    errors: [],
  });
}

export const referenceRoutes: AnyRoute[] = [
  list({
    operationId: 'listInsurers',
    path: '/insurers',
    summary: 'Insurers on the panel',
    operation: InsurersDocument,
    item: 'Insurer',
    queryParams: [
      {
        name: 'search',
        in: 'query',
        required: false,
        schema: { type: 'string' },
        description: 'Case-insensitive match on short or legal name',
      },
    ],
    toVariables: ({ query }) => ({ search: query.get('search') }),
    rows: (d) => d.insurers.map(insurerToRest),
  }),
  list({
    operationId: 'listBranches',
    path: '/branches',
    summary: 'Branches',
    operation: BranchesDocument,
    item: 'Branch',
    toVariables: () => ({}),
    rows: (d) => d.branches.map(branchToRest),
  }),
  list({
    operationId: 'listBusinessSources',
    path: '/business-sources',
    summary: "Business sources (the channels a client comes through): a client's business_source_id",
    operation: BusinessSourcesDocument,
    item: 'BusinessSource',
    toVariables: () => ({}),
    rows: (d) => d.businessSources.map(businessSourceToRest),
  }),
  list({
    operationId: 'listProspectTypes',
    path: '/prospect-types',
    summary: "Prospect types: a client's prospect_type_id",
    operation: ProspectTypesDocument,
    item: 'ProspectType',
    toVariables: () => ({}),
    rows: (d) => d.prospectTypes.map(prospectTypeToRest),
  }),
  list({
    operationId: 'listRiskManagers',
    path: '/risk-managers',
    summary: 'Risk managers (account executives)',
    operation: RiskManagersDocument,
    item: 'User',
    toVariables: () => ({}),
    rows: (d) => d.riskManagers.map(staffToRest),
  }),
  list({
    operationId: 'listSalesPeople',
    path: '/sales-people',
    summary: 'Sales people (agents)',
    operation: SalesPeopleDocument,
    item: 'User',
    toVariables: () => ({}),
    rows: (d) => d.salesPeople.map(staffToRest),
  }),
  list({
    operationId: 'listTaxes',
    path: '/policy/taxes',
    summary: 'Levies and duties added to every premium',
    operation: LeviesDocument,
    item: 'Levy',
    toVariables: () => ({}),
    rows: (d) => d.levies.map(levyToRest),
  }),
  list({
    operationId: 'listMotorBenefits',
    path: '/motor/benefits',
    summary: 'Distinct motor benefits',
    operation: MotorBenefitsDocument,
    item: 'MotorBenefit',
    toVariables: () => ({}),
    rows: (d) => d.motorBenefits.map(motorBenefitToRest),
  }),
  route({
    operationId: 'listProducts',
    method: 'GET',
    path: '/products',
    summary: 'Product lines and the standard-product catalogue',
    tag: 'Reference data',
    scopes: ['read'],
    idempotent: false,
    operation: ProductsDocument,
    toVariables: () => ({}),
    toResponse: ({ products }) => ({ status: 200, body: { data: productsToRest(products) } }),
    response: { status: 200, description: 'Products', schema: productsResponse },
    errors: [],
  }),
];
