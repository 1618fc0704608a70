import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { fromDbDate } from '../../lib/dates.ts';
import { onePolicy, POLICY_SCOPES, policyReach } from '../access/policy.visibility.ts';
import { nodeAccess } from '../../graphql/access.ts';

/** Policies: keys that read or bind; agents only the policies within their reach (policyVisibility). */
builder.prismaNode('Policy', {
  ...nodeAccess<{ id: number }>({ scopes: POLICY_SCOPES, reach: { via: policyReach, id: (p) => p.id } }, policyReach),
  id: { field: 'id' },
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    uuid: t.exposeString('uuid'),
    policyNo: t.exposeString('policyNo'),
    riskNote: t.exposeString('riskNote'),
    status: t.exposeString('status'),
    productLine: t.exposeString('productLine'),
    vehicleClass: t.exposeString('vehicleClass', { nullable: true }),
    coverType: t.exposeString('coverType', { nullable: true }),
    coverPeriod: t.exposeString('coverPeriod'),
    startDate: t.string({ resolve: (p) => fromDbDate(p.startDate) }),
    endDate: t.string({ resolve: (p) => fromDbDate(p.endDate) }),
    paymentMode: t.exposeString('paymentMode'),
    instalments: t.exposeInt('instalmentCount'),
    basicPremium: t.field({ type: MoneyRef, resolve: (p) => money(p.basicMinor)! }),
    taxes: t.field({ type: MoneyRef, resolve: (p) => money(p.taxesMinor)! }),
    total: t.field({ type: MoneyRef, resolve: (p) => money(p.totalMinor)! }),
    client: t.relation('client'),
    insurer: t.relation('insurer'),
    coverProduct: t.field({
      type: PolicyCoverProductRef,
      nullable: true,
      description: "Medical, travel and standard policies: the insurer's cover product; null for motor.",
      select: { coverProduct: { select: { id: true, code: true, name: true, productLine: true } } },
      resolve: (p) => p.coverProduct,
    }),
    coverDetails: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Medical, travel and standard policies: the cover as bound (normalised); null for motor.',
      resolve: (p) => p.coverDetails,
    }),
    insured: t.relation('risks', {
      description:
        'Medical, travel and standard policies: the insured persons (members), travellers or items, in the order added (removed ones too, with removedOn); empty for motor.',
      query: { orderBy: { id: 'asc' } },
    }),
    debitNotes: t.relation('debitNotes', {
      description: 'Instalments by due date, then endorsement and reinstatement notes in the order raised.',
      query: { orderBy: [{ dueOn: 'asc' }, { instalmentNo: 'asc' }, { id: 'asc' }] },
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const PolicyCoverProductRef = builder
  .objectRef<{ id: number; code: string; name: string; productLine: string }>('PolicyCoverProduct')
  .implement({
    description: "A policy's cover product (medical, travel or a standard product) of its insurer.",
    fields: (t) => ({
      databaseId: t.exposeInt('id'),
      code: t.exposeString('code', { description: 'MEDICAL, TRAVEL, or the standard product (PA, DOMESTIC, …)' }),
      name: t.exposeString('name'),
      productLine: t.exposeString('productLine'),
    }),
  });

builder.prismaObject('PolicyRisk', {
  ...onePolicy,
  name: 'PolicyInsured',
  description: 'An insured person (medical member), traveller or insured item of a non-motor policy.',
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'Names this insured on claims (insuredId) and endorsements.' }),
    kind: t.exposeString('kind', { description: 'member, traveller or item' }),
    name: t.exposeString('name', { description: "The person's name, or what the item is" }),
    relationship: t.exposeString('relationship', {
      nullable: true,
      description: 'Medical: principal, spouse, child or employee',
    }),
    age: t.exposeInt('ageYears', {
      nullable: true,
      description: 'Whole years at the start of cover (or when added by an endorsement)',
    }),
    dateOfBirth: t.string({
      nullable: true,
      resolve: (r) => (r.dateOfBirth ? fromDbDate(r.dateOfBirth) : null),
    }),
    inSchool: t.exposeBoolean('inSchool', { nullable: true }),
    idNo: t.exposeString('idNo', { nullable: true, description: 'National ID or passport number' }),
    sumInsured: t.field({ type: MoneyRef, nullable: true, resolve: (r) => money(r.sumInsuredMinor) }),
    details: t.field({ type: 'JSON', nullable: true, resolve: (r) => r.details }),
    status: t.exposeString('status', { description: 'active, or removed (by an endorsement)' }),
    addedOn: t.string({ nullable: true, resolve: (r) => (r.addedOn ? fromDbDate(r.addedOn) : null) }),
    removedOn: t.string({
      nullable: true,
      description: 'Y-m-d: the first day without cover',
      resolve: (r) => (r.removedOn ? fromDbDate(r.removedOn) : null),
    }),
  }),
});

builder.prismaObject('DebitNote', {
  ...onePolicy,
  fields: (t) => ({
    number: t.exposeString('number'),
    instalmentNo: t.exposeInt('instalmentNo'),
    dueOn: t.string({ resolve: (d) => fromDbDate(d.dueOn) }),
    amount: t.field({ type: MoneyRef, resolve: (d) => money(d.amountMinor)! }),
    paid: t.field({ type: MoneyRef, resolve: (d) => money(d.paidMinor)! }),
  }),
});
