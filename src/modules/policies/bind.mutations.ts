import { builder } from '../../graphql/builder.ts';
import { InsuredInputRef } from '../clients/insured.input.ts';
import { saveOrBindProblems } from '../motor/motor.mutations.ts';
import { bindService } from './bind.service.ts';
import { policyService } from './policy.service.ts';

const BindVehicleInput = builder.inputType('BindVehicleInput', {
  fields: (t) => ({
    regNo: t.string({ required: true }),
    chassisNo: t.string({ description: 'Needed for the registry certificate' }),
    engineNo: t.string(),
    make: t.string(),
    model: t.string(),
    yom: t.int({ required: true }),
    value: t.float(),
    coverage: t.string(),
    bodyType: t.string(),
    tonnage: t.float(),
    pll: t.int(),
    basicPremium: t.float(),
    rate: t.float(),
    benefits: t.field({ type: 'JSON' }),
  }),
});

const BindPolicyInput = builder.inputType('BindPolicyInput', {
  fields: (t) => ({
    startDate: t.string({ required: true }),
    endDate: t.string(),
    insurerId: t.int({ required: true }),
    class: t.string({ required: true }),
    coverage: t.string(),
    scope: t.string({ required: true }),
    coverPeriod: t.string(),
    days: t.int(),
    totalBasic: t.float(),
    taxes: t.float(),
    premium: t.float({
      required: true,
      description: 'Gross premium, whole shillings; within KES 1 of the server price',
    }),
    premiumInstalments: t.int(),
    paymentMode: t.string({ description: 'full (default) or ipf' }),
    limitsOfLiability: t.field({ type: 'JSON' }),
    productVersion: t.int({ description: 'Rating version priced on; a newer one answers price_changed' }),
  }),
});

/** What a bind (motor or any other line) answers with. */
type Bound = { policy: { id: number }; clientNo: string; clientKey: string | null };
export const BoundPolicyRef = builder.objectRef<Bound>('BoundPolicy').implement({
  fields: (t) => ({
    policy: t.prismaField({
      type: 'Policy',
      resolve: (query, b, _a, ctx) => policyService.byId(ctx, b.policy.id, query),
    }),
    clientNo: t.exposeString('clientNo'),
    clientKey: t.exposeString('clientKey', {
      nullable: true,
      description: 'Issued only when the client had no client-area key; shown once',
    }),
    portalNote: t.string({
      nullable: true,
      resolve: (b) => (b.clientKey ? null : 'The client already has client-area credentials; they keep working.'),
    }),
  }),
});

builder.mutationFields((t) => ({
  bindMotorPolicy: t.field({
    type: BoundPolicyRef,
    authScopes: { bind: true },
    errors: { types: saveOrBindProblems, directResult: true, union: { name: 'BindMotorPolicyResult' } },
    description:
      'Re-prices with the chosen insurer, matches or creates the client, and raises the policy pending payment with 1–4 debit notes.',
    args: {
      client: t.arg({ description: 'The policyholder: an existing client by clientNo, or the details of one to match or add.', type: InsuredInputRef, required: true }),
      policy: t.arg({ description: 'The cover: insurer, dates, payment mode and the premium the caller was shown.', type: BindPolicyInput, required: true }),
      vehicles: t.arg({ description: 'The vehicles to insure, each with its registration and value.', type: [BindVehicleInput], required: true }),
      prospectUuid: t.arg.string({ description: 'The prospect this policy is for: it moves to won' }),
    },
    resolve: (_r, args, ctx) => bindService.bind(ctx, args),
  }),
}));
