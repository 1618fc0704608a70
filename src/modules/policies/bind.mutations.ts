import { builder } from '../../graphql/builder.ts';
import { InsuredInputRef } from '../clients/insured.input.ts';
import { saveOrBindProblems } from '../motor/motor.mutations.ts';
import { bindService } from './bind.service.ts';
import { policyService } from './policy.service.ts';

const BindVehicleInput = builder.inputType('BindVehicleInput', {
  description: 'One vehicle of a motor bind.',
  fields: (t) => ({
    regNo: t.string({ description: 'Registration, any spacing; stored upper case without spaces.', required: true }),
    chassisNo: t.string({ description: 'Needed for the registry certificate' }),
    engineNo: t.string({ description: 'Engine number.' }),
    make: t.string({ description: 'Vehicle make.' }),
    model: t.string({ description: 'Vehicle model.' }),
    yom: t.int({ description: 'Year of manufacture.', required: true }),
    value: t.float({ description: 'Vehicle value, whole shillings; required for comprehensive cover.' }),
    coverage: t.string({ description: 'Private (default), a commercial class or a PSV class.' }),
    bodyType: t.string({ description: 'Body type (saloon, pickup …).' }),
    tonnage: t.float({ description: 'Commercial vehicles: tonnage.' }),
    pll: t.int({ description: 'Passengers covered for passenger legal liability.' }),
    basicPremium: t.float({
      description:
        'The basic premium shown for this vehicle, whole shillings (informational; the server prices the bind).',
    }),
    rate: t.float({ description: 'The rate shown, percent (informational).' }),
    benefits: t.field({
      description: 'Benefits shown (informational; the product decides what is included).',
      type: 'JSON',
    }),
  }),
});

const BindPolicyInput = builder.inputType('BindPolicyInput', {
  description: 'The cover of a motor bind: insurer, class, dates, and the figures the caller was shown.',
  fields: (t) => ({
    startDate: t.string({ description: 'First day of cover, Y-m-d.', required: true }),
    endDate: t.string({ description: 'Y-m-d; with coverPeriod tor and no days, the days of cover run to it.' }),
    insurerId: t.int({ description: "The insurer chosen (databaseId, from the quote's options).", required: true }),
    class: t.string({ description: 'Motor, Tuktuk or Motorcycle (case-insensitive).', required: true }),
    coverage: t.string({ description: 'Private (default), a commercial class or a PSV class.' }),
    scope: t.string({ description: 'Comprehensive or TPO (or "third party only").', required: true }),
    coverPeriod: t.string({ description: 'annual (default) or tor.' }),
    days: t.int({ description: 'Time on risk, 1–364 (with coverPeriod tor).' }),
    totalBasic: t.float({
      description: 'Basic premium shown, whole shillings; checked against the server price when sent.',
    }),
    taxes: t.float({ description: 'Levies and duties shown, whole shillings; checked when sent.' }),
    premium: t.float({
      required: true,
      description: 'Gross premium, whole shillings; within KES 1 of the server price',
    }),
    premiumInstalments: t.int({ description: 'How many instalments (1–4 where the insurer allows); 1 when absent.' }),
    paymentMode: t.string({ description: 'full (default) or ipf' }),
    limitsOfLiability: t.field({ description: 'Limits of liability as shown, stored with the policy.', type: 'JSON' }),
    productVersion: t.int({ description: 'Rating version priced on; a newer one answers price_changed' }),
  }),
});

/** What a bind (motor or any other line) answers with. */
type Bound = { policy: { id: number }; clientNo: string; clientKey: string | null };
export const BoundPolicyRef = builder.objectRef<Bound>('BoundPolicy').implement({
  description: 'What a bind answers: the new policy (pending payment) and the client it is for.',
  fields: (t) => ({
    policy: t.prismaField({
      description: 'The new policy, pending payment with its debit notes.',
      type: 'Policy',
      resolve: (query, b, _a, ctx) => policyService.byId(ctx, b.policy.id, query),
    }),
    clientNo: t.exposeString('clientNo', { description: "The policyholder's client number (matched or added)." }),
    clientKey: t.exposeString('clientKey', {
      nullable: true,
      description: 'Issued only when the client had no client-area key; shown once',
    }),
    portalNote: t.string({
      description:
        "When no clientKey is issued: a note that the client's existing client-area credentials keep working; null otherwise.",
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
      client: t.arg({
        description: 'The policyholder: an existing client by clientNo, or the details of one to match or add.',
        type: InsuredInputRef,
        required: true,
      }),
      policy: t.arg({
        description: 'The cover: insurer, dates, payment mode and the premium the caller was shown.',
        type: BindPolicyInput,
        required: true,
      }),
      vehicles: t.arg({
        description: 'The vehicles to insure, each with its registration and value.',
        type: [BindVehicleInput],
        required: true,
      }),
      prospectUuid: t.arg.string({ description: 'The prospect this policy is for: it moves to won' }),
    },
    resolve: (_r, args, ctx) => bindService.bind(ctx, args),
  }),
}));
