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
    debitNotes: t.relation('debitNotes', {
      description: 'Instalments by due date, then endorsement and reinstatement notes in the order raised.',
      query: { orderBy: [{ dueOn: 'asc' }, { instalmentNo: 'asc' }, { id: 'asc' }] },
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
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
