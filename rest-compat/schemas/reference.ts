import { arr, dataOf, int, money, nullable, num, obj, ref, str, oneOf } from './builders.ts';

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
  BusinessSource: obj({ id: int("What a client's business_source_id takes"), name: str() }),
  ProspectType: obj({ id: int("What a client's prospect_type_id takes"), code: str('Short stable code'), name: str() }),
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
    basis: oneOf(['percent', 'flat']),
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

export const productsResponse = dataOf(
  obj({ lines: arr(ref('ProductLine')), standard_products: arr(ref('StandardProduct')) }),
);
