import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { fromDbDate } from '../../lib/dates.ts';
import { onePolicy, POLICY_SCOPES, policyReach } from '../access/policy.visibility.ts';
import { nodeAccess, KEEPS_REACH } from '../../graphql/access.ts';
import type { Insurer } from '../../generated/prisma/client.ts';
import { InsurerRef } from '../reference/reference.type.ts';
import { inHandReference, references } from '../reference/references.ts';

/** Policies: keys that read or bind; agents only the policies within their reach (policyVisibility). */
export const PolicyRef = builder.prismaNode('Policy', {
  select: { id: true },
  description:
    'An insurance policy bound for a client with one insurer: motor, medical, travel or a standard product; its premium, instalments and state.',
  ...nodeAccess<{ id: number }>({ scopes: POLICY_SCOPES, reach: { via: policyReach, id: (p) => p.id } }, policyReach),
  id: { field: 'id' },
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer id of the policy; REST paths use uuid.' }),
    uuid: t.exposeString('uuid', {
      description: "The policy's UUID: the key of REST paths (/policies/{uuid}) and of most arguments.",
    }),
    policyNo: t.exposeString('policyNo', {
      description:
        'The policy number, <line>-<year>-<sequence>: MTR motor, MED medical, TRV travel, STD standard products (MTR-2026-000123).',
    }),
    riskNote: t.exposeString('riskNote', {
      description: 'The risk note number issued with the policy, RN-<year>-<sequence> (same sequence as policyNo).',
    }),
    status: t.exposeString('status', {
      description:
        'The policy state (see PolicyStatus): pending_payment, active, cancelled, expired, lapsed, renewed or not_taken_up.',
    }),
    productLine: t.exposeString('productLine', { description: 'motor, medical, travel or standard.' }),
    vehicleClass: t.exposeString('vehicleClass', {
      description: 'Motor: private, commercial, psv or motorcycle; null for other lines.',
      nullable: true,
    }),
    coverType: t.exposeString('coverType', {
      description:
        'Motor: comprehensive, tpo (third party only) or tpft (third party, fire and theft); null for other lines.',
      nullable: true,
    }),
    coverPeriod: t.exposeString('coverPeriod', {
      description: 'The cover period the premium was rated for (motor: annual or tor, a shorter time-on-risk period).',
    }),
    startDate: t.string({
      description: 'First day of cover, Y-m-d.',
      select: { startDate: true },
      resolve: (p) => fromDbDate(p.startDate),
    }),
    endDate: t.string({
      select: { endDate: true },
      description: 'Last day of cover, Y-m-d (the policy expires the day after).',
      resolve: (p) => fromDbDate(p.endDate),
    }),
    paymentMode: t.exposeString('paymentMode', {
      description:
        "full (the client pays the insurer's instalments) or ipf (a lender's premium-finance loan pays the premium).",
    }),
    instalments: t.exposeInt('instalmentCount', {
      description: 'How many instalments the premium is split into (1 when paid at once); each has a debit note.',
    }),
    basicPremium: t.field({
      select: { basicMinor: true },
      description: 'The premium before levies and duties.',
      type: MoneyRef,
      resolve: (p) => money(p.basicMinor)!,
    }),
    taxes: t.field({
      select: { taxesMinor: true },
      description: 'The levies and duties on the premium (lines in levies).',
      type: MoneyRef,
      resolve: (p) => money(p.taxesMinor)!,
    }),
    total: t.field({
      select: { totalMinor: true },
      description: 'What the client pays: basicPremium + taxes.',
      type: MoneyRef,
      resolve: (p) => money(p.totalMinor)!,
    }),
    client: t.relation('client', { ...KEEPS_REACH, description: 'The policyholder.' }),
    insurer: t.field({
      type: InsurerRef,
      select: { insurerId: true },
      description: 'The insurer carrying the risk.',
      resolve: (p, _a, ctx) => references.insurer(ctx, p.insurerId) as Promise<Insurer> | Insurer,
      extensions: inHandReference.insurer('insurerId'),
    }),
    coverProduct: t.field({
      type: PolicyCoverProductRef,
      nullable: true,
      description: "Medical, travel and standard policies: the insurer's cover product; null for motor.",
      select: { coverProduct: { select: { id: true, code: true, name: true, productLine: true } } },
      resolve: (p) => p.coverProduct,
    }),
    coverDetails: t.field({
      select: { coverDetails: true },
      type: 'JSON',
      nullable: true,
      description: 'Medical, travel and standard policies: the cover as bound (normalised); null for motor.',
      resolve: (p) => p.coverDetails,
    }),
    insured: t.relation('risks', {
      ...KEEPS_REACH,
      description:
        'Medical, travel and standard policies: the insured persons (members), travellers or items, in the order added (removed ones too, with removedOn); empty for motor.',
      query: { orderBy: { id: 'asc' } },
    }),
    debitNotes: t.relation('debitNotes', {
      ...KEEPS_REACH,
      description:
        'By due date; on one day, endorsement and reinstatement notes (instalment number 0) before the instalment; then in the order raised.',
      query: { orderBy: [{ dueOn: 'asc' }, { instalmentNo: 'asc' }, { id: 'asc' }] },
    }),
    createdAt: t.expose('createdAt', { description: 'When the policy was bound.', type: 'DateTime' }),
  }),
});

const PolicyCoverProductRef = builder
  .objectRef<{ id: number; code: string; name: string; productLine: string }>('PolicyCoverProduct')
  .implement({
    description: "A policy's cover product (medical, travel or a standard product) of its insurer.",
    fields: (t) => ({
      databaseId: t.exposeInt('id', { description: 'The integer id of the cover product.' }),
      code: t.exposeString('code', { description: 'MEDICAL, TRAVEL, or the standard product (PA, DOMESTIC, …)' }),
      name: t.exposeString('name', { description: "The product's name." }),
      productLine: t.exposeString('productLine', { description: 'medical, travel or standard.' }),
    }),
  });

builder.prismaObject('PolicyRisk', {
  select: { id: true, policyId: true },
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
      select: { dateOfBirth: true },
      description: 'Y-m-d; null when not given (items).',
      nullable: true,
      resolve: (r) => (r.dateOfBirth ? fromDbDate(r.dateOfBirth) : null),
    }),
    inSchool: t.exposeBoolean('inSchool', {
      description: 'Medical children: whether in full-time education, as given; null when not given.',
      nullable: true,
    }),
    idNo: t.exposeString('idNo', { nullable: true, description: 'National ID or passport number' }),
    sumInsured: t.field({
      select: { sumInsuredMinor: true },
      description: 'Standard products: the insured value of the item; null for persons.',
      type: MoneyRef,
      nullable: true,
      resolve: (r) => money(r.sumInsuredMinor),
    }),
    details: t.field({
      select: { details: true },
      description: 'Line-specific details of this insured as bound (normalised); null when none.',
      type: 'JSON',
      nullable: true,
      resolve: (r) => r.details,
    }),
    status: t.exposeString('status', { description: 'active, or removed (by an endorsement)' }),
    addedOn: t.string({
      select: { addedOn: true },
      description:
        "Y-m-d: the first day of this insured's cover when added by an endorsement; null when on cover from the start.",
      nullable: true,
      resolve: (r) => (r.addedOn ? fromDbDate(r.addedOn) : null),
    }),
    removedOn: t.string({
      select: { removedOn: true },
      nullable: true,
      description: 'Y-m-d: the first day without cover',
      resolve: (r) => (r.removedOn ? fromDbDate(r.removedOn) : null),
    }),
  }),
});

builder.prismaObject('DebitNote', {
  select: { id: true, policyId: true },
  description:
    "A debit note: one instalment of a policy's premium (or the charge of an endorsement or reinstatement), with what has been paid on it.",
  ...onePolicy,
  fields: (t) => ({
    number: t.exposeString('number', { description: 'The debit note number.' }),
    instalmentNo: t.exposeInt('instalmentNo', {
      description: 'Which instalment (1 for the first); numbers the order of payment.',
    }),
    dueOn: t.string({ description: 'Due date, Y-m-d.', select: { dueOn: true }, resolve: (d) => fromDbDate(d.dueOn) }),
    amount: t.field({
      description: 'What the note charges.',
      type: MoneyRef,
      select: { amountMinor: true },
      resolve: (d) => money(d.amountMinor)!,
    }),
    paid: t.field({
      select: { paidMinor: true },
      description: 'What receipts have paid on it so far.',
      type: MoneyRef,
      resolve: (d) => money(d.paidMinor)!,
    }),
  }),
});
