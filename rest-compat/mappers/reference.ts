import type {
  BranchesQuery,
  BusinessSourcesQuery,
  InsurersQuery,
  LeviesQuery,
  MotorBenefitsQuery,
  ProductsQuery,
  ProspectTypesQuery,
  SalesPeopleQuery,
} from '../generated/operations.ts';
import { minor, whole } from './money.ts';

export const insurerToRest = (i: InsurersQuery['insurers'][number]) => ({
  id: i.databaseId,
  name: i.name,
  legal_name: i.legalName,
  registry_member_id: i.registryMemberId,
  commission_rate_bps: i.commissionRateBps,
  status: i.status,
  monogram: i.monogram,
});

export const branchToRest = (b: BranchesQuery['branches'][number]) => ({
  id: b.databaseId,
  code: b.code,
  name: b.name,
  city: b.city,
});

export const businessSourceToRest = (b: BusinessSourcesQuery['businessSources'][number]) => ({
  id: b.databaseId,
  name: b.name,
});

export const prospectTypeToRest = (p: ProspectTypesQuery['prospectTypes'][number]) => ({
  id: p.databaseId,
  code: p.code,
  name: p.name,
});

/** A risk manager or a sales person (the operations select the same fields). */
export const staffToRest = (u: SalesPeopleQuery['salesPeople'][number]) => ({
  id: u.databaseId,
  name: u.name,
  email: u.email,
  phone: u.phone,
  role: u.role,
  code: u.code,
  branch_id: u.branchId,
});

export const levyToRest = (l: LeviesQuery['levies'][number]) => ({
  id: l.databaseId,
  code: l.code,
  name: l.name,
  basis: l.basis,
  rate_bps: l.rateBps,
  rate_percent: l.ratePercent,
  amount: whole(l.amount),
  amount_minor: minor(l.amount),
});

export const motorBenefitToRest = (b: MotorBenefitsQuery['motorBenefits'][number]) => ({ id: b.id, name: b.name });

export const productsToRest = (p: ProductsQuery['products']) => ({
  lines: p.lines.map((l) => ({ code: l.code, name: l.name, quote_endpoint: l.quoteEndpoint })),
  standard_products: p.standardProducts.map((s) => ({
    id: s.databaseId,
    code: s.code,
    name: s.name,
    description: s.description,
    brochure_url: s.brochureUrl,
    product_line: s.productLine,
  })),
});
