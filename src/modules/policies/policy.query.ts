import { builder } from '../../graphql/builder.ts';
import { fromDbDate } from '../../lib/dates.ts';
import { KEEPS_REACH, visibleOrNull } from '../../graphql/access.ts';
import { PLANNED_ROWS } from '../../graphql/column-fields.ts';
import { money, MoneyRef, offsetQuery } from '../../graphql/common.ts';
import { policyService } from './policy.service.ts';
import { PolicyRef } from './policy.type.ts';
import { StaffMemberRef } from '../reference/reference.type.ts';
import { inHandReference, references } from '../reference/references.ts';
import { onePolicy, policyReach } from '../access/policy.visibility.ts';

const PolicyStatusEnum = builder.enumType('PolicyStatus', {
  description:
    'The states of a policy. Moves: pending_payment → active or not_taken_up; active → cancelled, expired, lapsed or renewed; expired → renewed; cancelled or lapsed → active (reinstatement).',
  values: {
    pending_payment: { description: 'Bound; the first instalment is not yet paid in full (no cover yet).' },
    active: { description: 'On cover: the first instalment is paid.' },
    cancelled: { description: 'Ended early by a confirmed cancellation; may be reinstated within 30 days.' },
    expired: { description: 'Past its end date without renewal.' },
    lapsed: {
      description: 'An instalment unpaid 14 days after its due date; paying the arrears within 30 days reinstates it.',
    },
    renewed: { description: 'Succeeded by its renewal policy, which became active.' },
    not_taken_up: { description: 'Never paid within 30 days of the later of its start and its bind.' },
  } as const,
});

builder.prismaObject('PolicyVehicle', {
  select: { id: true, policyId: true },
  description: 'A vehicle insured by a motor policy.',
  ...onePolicy,
  fields: (t) => ({
    regNo: t.exposeString('regNo', { description: 'Normalised: no spaces, upper case.' }),
    chassisNo: t.exposeString('chassisNo', {
      description: 'Chassis (VIN) number as given; null when not given.',
      nullable: true,
    }),
    engineNo: t.exposeString('engineNo', {
      description: 'Engine number as given; null when not given.',
      nullable: true,
    }),
    make: t.exposeString('make', { description: 'Vehicle make (Toyota …); null when not given.', nullable: true }),
    model: t.exposeString('model', { description: 'Vehicle model; null when not given.', nullable: true }),
    yearOfManufacture: t.exposeInt('yearOfManufacture', { description: 'Year of manufacture.' }),
    value: t.field({
      select: { valueMinor: true },
      description: 'Insured (sum insured) value; null for third-party covers rated without a value.',
      type: MoneyRef,
      nullable: true,
      resolve: (v) => money(v.valueMinor),
    }),
    bodyType: t.exposeString('bodyType', {
      description: 'Body type as given (saloon, pickup …); null when not given.',
      nullable: true,
    }),
    coverage: t.exposeString('coverage', {
      description: 'The motor coverage it is rated under (Private, Commercial …); null when not recorded.',
      nullable: true,
    }),
    status: t.exposeString('status', {
      description: 'active, or removed (by an endorsement: off cover from removedOn; its certificate is cancelled).',
    }),
    addedOn: t.string({
      select: { addedOn: true },
      description:
        "Y-m-d: the first day of its cover: the policy's start, or the effective date of the endorsement that added it.",
      nullable: true,
      resolve: (v) => (v.addedOn ? fromDbDate(v.addedOn) : null),
    }),
    removedOn: t.string({
      select: { removedOn: true },
      nullable: true,
      description: 'Y-m-d: the first day without cover, when removed by an endorsement; else null.',
      resolve: (v) => (v.removedOn ? fromDbDate(v.removedOn) : null),
    }),
  }),
});

builder.prismaObject('PolicyTax', {
  select: { id: true, policyId: true },
  ...onePolicy,
  description: 'One levy or duty line of the premium.',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'Stable code of the levy or duty.' }),
    name: t.exposeString('name', { description: 'Its name as printed on documents.' }),
    amount: t.field({
      description: 'The amount of this line.',
      type: MoneyRef,
      select: { amountMinor: true },
      resolve: (x) => money(x.amountMinor)!,
    }),
  }),
});

builder.prismaObjectFields('DebitNote', (t) => ({
  outstanding: t.field({
    type: MoneyRef,
    description: 'amount − paid − credited (settled by a credit note), never below zero.',
    select: { amountMinor: true, paidMinor: true, creditedMinor: true },
    resolve: (d) => {
      const open = d.amountMinor - d.paidMinor - d.creditedMinor;
      return money(open > 0n ? open : 0n)!;
    },
  }),
  allocations: t.relation('allocations', {
    description: "The receipts' payments allocated to this note, oldest first.",
    query: { orderBy: { id: 'asc' } },
  }),
}));

// Relations (not plain resolvers) so Pothos folds them into the parent's Prisma query: no query per policy.
builder.prismaObjectFields('Policy', (t) => ({
  vehicles: t.relation('vehicles', {
    ...KEEPS_REACH,
    description: 'Motor: the insured vehicles, in the order added; empty for other lines.',
    query: { orderBy: { id: 'asc' } },
  }),
  levies: t.relation('taxes', {
    ...KEEPS_REACH,
    description: 'The levy and duty lines that make up `taxes`.',
    query: { orderBy: { id: 'asc' } },
  }),
  receipts: t.relation('receipts', {
    ...KEEPS_REACH,
    description: 'Receipts raised for this policy, with their allocations.',
    query: { orderBy: { id: 'asc' } },
  }),
  salesPerson: t.field({
    type: StaffMemberRef,
    select: { salesPersonId: true },
    description: 'The sales person credited with the policy; null when none.',
    nullable: true,
    resolve: (p, _a, ctx) => references.person(ctx, p.salesPersonId),
    extensions: inHandReference.person('salesPersonId'),
  }),
}));

builder.prismaObject('PolicyStatusChange', {
  select: { id: true, policyId: true },
  ...onePolicy,
  description: 'One transition of the policy state machine.',
  fields: (t) => ({
    fromStatus: t.exposeString('fromStatus', { nullable: true, description: 'Null for the first row (bind)' }),
    toStatus: t.exposeString('toStatus', { description: 'The status entered (Policy.status values).' }),
    source: t.exposeString('source', { description: 'bind, payment, schedule, api, renewal or reinstatement' }),
    reason: t.exposeString('reason', {
      nullable: true,
      description: 'Why, in words (e.g. a cancellation reason); null when none.',
    }),
    at: t.expose('at', { type: 'DateTime', description: 'When the policy moved.' }),
  }),
});

builder.prismaObjectFields('Policy', (t) => ({
  statusHistory: t.relation('statusHistory', {
    ...KEEPS_REACH,
    description: 'Every status the policy has had, oldest first.',
    query: { orderBy: { id: 'asc' } },
  }),
  // Not plain relations: a renewal may be sold by another agent than the policy it renews, so each is checked
  // against the caller's reach and reads as null when out of it (the rest of the record stays readable).
  renewalOf: t.field({
    type: PolicyRef,
    nullable: true,
    // Read straight from a planned row (graphql/column-fields.ts fromPlannedRow), which carries the relation.
    extensions: { ...KEEPS_REACH.extensions, readsRelation: 'renewalOf' },
    description: "The policy this one renews; null when none, or when it is outside the caller's reach.",
    select: (_args, _ctx, nested) => ({ renewalOf: nested({ select: { id: true } }) }),
    resolve: (p, _args, ctx) => visibleOrNull(ctx, policyReach, p.renewalOf),
  }),
  renewal: t.field({
    type: PolicyRef,
    nullable: true,
    extensions: { ...KEEPS_REACH.extensions, readsRelation: 'renewal' },
    description:
      "The policy that renews this one, once bound; null when none, or when it is outside the caller's reach.",
    select: (_args, _ctx, nested) => ({ renewal: nested({ select: { id: true } }) }),
    resolve: (p, _args, ctx) => visibleOrNull(ctx, policyReach, p.renewal),
  }),
}));

const PolicyStatusCountRef = builder
  .objectRef<Awaited<ReturnType<typeof policyService.counts>>[number]>('PolicyStatusCount')
  .implement({
    description: 'How many policies are in one state.',
    fields: (t) => ({
      status: t.expose('status', { description: 'The state.', type: PolicyStatusEnum }),
      count: t.exposeInt('count', { description: 'How many policies the caller may see are in it.' }),
    }),
  });

builder.queryFields((t) => ({
  policyCounts: t.field({
    type: [PolicyStatusCountRef],
    authScopes: { read: true },
    description: 'How many policies the caller may see are in each state (states with none are left out).',
    resolve: (_root, _args, ctx) => policyService.counts(ctx),
  }),
  policies: t.prismaConnection({
    // Its rows are policyService.list's: the selection's plan, or Prisma given the selection whole.
    extensions: { ...KEEPS_REACH.extensions, ...PLANNED_ROWS.extensions },
    type: 'Policy',
    cursor: 'id',
    authScopes: { read: true },
    description:
      'Policies the caller may see, newest first. `offset` serves page-number pagination when `after` is absent.',
    args: {
      status: t.arg({ description: 'Only policies in this state.', type: PolicyStatusEnum }),
      clientNo: t.arg.string({ description: "Only this client's policies (client number)." }),
      productLine: t.arg.string({ description: 'Only this line: motor, medical, travel or standard.' }),
      insurerId: t.arg.int({ description: "Only this insurer's policies (insurer databaseId)." }),
      salesPersonId: t.arg.int({ description: 'Only policies credited to this sales person (user databaseId).' }),
      startFrom: t.arg.string({ description: 'Start date on or after (Y-m-d).' }),
      startTo: t.arg.string({ description: 'Start date on or before (Y-m-d).' }),
      search: t.arg.string({ description: 'Policy number or vehicle registration (any spacing).' }),
      offset: t.arg.int({
        description: 'Page-number pagination: skip this many policies (used only when after is absent); at least 0.',
      }),
    },
    resolve: (query, _root, args, ctx) => {
      const paged = offsetQuery(query, args);
      return policyService.list(ctx, args, paged);
    },
  }),
  policy: t.prismaField({
    // Its row is visiblePolicy's: the selection's plan, or Prisma given the selection whole.
    extensions: { ...KEEPS_REACH.extensions, ...PLANNED_ROWS.extensions },
    type: 'Policy',
    authScopes: { read: true },
    description: 'A policy by UUID; not_found when missing or not visible to the caller.',
    args: { uuid: t.arg.string({ description: "The policy's UUID.", required: true }) },
    resolve: (query, _root, args, ctx) => policyService.get(ctx, args.uuid, query),
  }),
}));
