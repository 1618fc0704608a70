import type { InputObjectRef } from '@pothos/core';
import type { Context } from '../../context.ts';
import { builder } from '../../graphql/builder.ts';
import { DomainRuleError, InvalidStateError, ValidationError } from '../../lib/problem.ts';
import { ClaimStatusEnum } from './claim.type.ts';
import { claimService } from './claim.service.ts';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

const ThirdPartyInput = builder.inputType('ClaimThirdPartyInput', {
  description: 'Another party involved in the loss (kept as given, in Claim.thirdParties).',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Their name; at most 200 characters.' }),
    phone: t.string({ description: 'A Kenyan mobile number (07…, 01…, +254…).' }),
    idNo: t.string({ description: 'Their national ID or passport number; at most 20 characters.' }),
    registration: t.string({ description: "The third party's vehicle" }),
    insurer: t.string({ description: "The third party's insurer, as named; at most 200 characters." }),
    injured: t.boolean({ description: 'Whether they were injured; null when not known.' }),
    damage: t.string({ description: 'Damage or injury to them, in words; at most 1000 characters.' }),
  }),
});
const WitnessInput = builder.inputType('ClaimWitnessInput', {
  description: 'A witness of the loss (kept as given, in Claim.witnesses).',
  fields: (t) => ({
    name: t.string({ required: true, description: "The witness's name; at most 200 characters." }),
    phone: t.string({ description: 'A Kenyan mobile number (07…, 01…, +254…).' }),
    statement: t.string({ description: 'What they saw, in their words; at most 2000 characters.' }),
  }),
});

const RegisterClaimInput = builder.inputType('RegisterClaimInput', {
  description: 'A first notice of loss: the policy and insured risk, the loss, and who reports it.',
  fields: (t) => ({
    policyId: t.string({ required: true, description: 'The policy uuid' }),
    registration: t.string({ description: 'The vehicle (motor): on the policy on the loss date' }),
    insuredId: t.int({
      description:
        "Medical, travel and standard policies: the insured person, traveller or item (Policy.insured's databaseId), on cover on the loss date",
    }),
    cause: t.string({ required: true, description: 'A cause code of the policy’s product line (claimCauses)' }),
    lossDate: t.string({ required: true, description: 'Y-m-d' }),
    lossTime: t.string({ description: 'HH:MM, Nairobi time' }),
    lossPlace: t.string({ required: true, description: 'Where the loss happened, in words; at most 300 characters.' }),
    description: t.string({ required: true, description: 'What happened; at most 5000 characters.' }),
    thirdParties: t.field({ type: [ThirdPartyInput], description: 'Other parties involved; at most 20.' }),
    witnesses: t.field({ type: [WitnessInput], description: 'Witnesses of the loss; at most 20.' }),
    policeAbstractNo: t.string({
      description:
        'The police abstract number, when reported to the police (theft, third parties); at most 50 characters.',
    }),
    antiTheftDevice: t.boolean({ description: 'Theft: an approved anti-theft device was fitted (excess terms)' }),
    reporterName: t.string({ description: 'Default: the policyholder' }),
    reporterPhone: t.string({ description: "The reporter's Kenyan mobile number (07…, 01…, +254…)." }),
    reporterRelationship: t.string({
      description:
        'How the reporter relates to the policyholder (driver, spouse, broker …), free text; at most 50 characters.',
    }),
    channel: t.string({ description: 'api (default), phone, email, walk_in, agent or client_area' }),
    reportedAt: t.string({ description: 'ISO 8601 with offset, when the notice was received (default now)' }),
    estimatedLoss: t.field({
      type: 'Shillings',
      description: 'Whole shillings: the reporter’s estimate (initial reserve)',
    }),
    assigneeId: t.int({ description: 'The claims handler (a user)' }),
  }),
});

const MoveClaimInput = builder.inputType('MoveClaimInput', {
  description: 'A plain move of the claim state machine, with an optional reason.',
  fields: (t) => ({
    to: t.field({
      type: ClaimStatusEnum,
      required: true,
      description:
        'The status to move to: documents_pending, with_underwriter (checklist complete), under_assessment, closed or withdrawn; the others have their own mutations.',
    }),
    reason: t.string({ description: "Why, kept in the claim's history; at most 1000 characters." }),
  }),
});
const ReserveInput = builder.inputType('AdjustClaimReserveInput', {
  description: 'The new outstanding reserve and why.',
  fields: (t) => ({
    amount: t.field({ type: 'Shillings', required: true, description: 'Whole shillings: the new reserve' }),
    reason: t.string({
      required: true,
      description: 'Why the reserve changes, kept with the reserve movement; 3 to 1000 characters.',
    }),
  }),
});
const AssessorInput = builder.inputType('AppointClaimAssessorInput', {
  description: 'The assessor appointed (replaces any appointed before).',
  fields: (t) => ({
    name: t.string({ required: true, description: "The assessor's name; 2 to 200 characters." }),
    phone: t.string({ description: "The assessor's Kenyan mobile number." }),
    firm: t.string({ description: 'The assessing firm; at most 200 characters.' }),
  }),
});
const AssessmentInput = builder.inputType('RecordClaimAssessmentInput', {
  description: "The assessor's report.",
  fields: (t) => ({
    assessedAmount: t.field({ type: 'Shillings', required: true, description: 'Whole shillings' }),
    salvage: t.field({ type: 'Shillings', description: 'Whole shillings' }),
    notes: t.string({ description: "The assessor's findings in words; at most 5000 characters." }),
  }),
});
const ApproveInput = builder.inputType('ApproveClaimInput', {
  description: 'The amount approved; the excess and net payable follow from the product terms.',
  fields: (t) => ({
    approvedAmount: t.field({ type: 'Shillings', required: true, description: 'Whole shillings, before the excess' }),
    reason: t.string({ description: "A note on the approval, kept in the claim's history; at most 1000 characters." }),
  }),
});
const RepudiateInput = builder.inputType('RepudiateClaimInput', {
  description: 'Why the claim is repudiated: a reason code and an optional note.',
  fields: (t) => ({
    reason: t.string({ required: true, description: 'A reason code (docs/claims.md "Claims")' }),
    note: t.string({ description: 'Free text beside the reason code; at most 2000 characters.' }),
  }),
});
const ReopenInput = builder.inputType('ReopenClaimInput', {
  description: 'Why a closed claim is reopened and, optionally, a new reserve.',
  fields: (t) => ({
    reason: t.string({ required: true, description: "Why, kept in the claim's history; 3 to 1000 characters." }),
    reserve: t.field({ type: 'Shillings', description: 'Whole shillings' }),
  }),
});
const UpdateClaimInput = builder.inputType('UpdateClaimInput', {
  description: 'The handler and the police abstract number; a field left out is unchanged.',
  fields: (t) => ({
    assigneeId: t.int({ description: 'null unassigns' }),
    policeAbstractNo: t.string({
      description: 'The police abstract number; empty or null clears it; at most 50 characters.',
    }),
  }),
});

const problems = [ValidationError, InvalidStateError, DomainRuleError];
const reload = (ctx: Context, query: object, row: { uuid: string }) => claimService.get(ctx, row.uuid, query);

builder.mutationFields((t) => {
  const claimCommand = (
    name: string,
    description: string,
    input: InputObjectRef<Types, object>,
    run: (ctx: Context, uuid: string, input: unknown) => Promise<{ uuid: string }>,
  ) =>
    t.prismaField({
      type: 'Claim',
      authScopes: { crm: true },
      errors: { types: problems, directResult: true, union: { name: `${name}Result` } },
      description,
      args: {
        uuid: t.arg.string({ required: true, description: 'The claim (its uuid).' }),
        input: t.arg({ type: input, required: true, description: 'What this step records; see the input type.' }),
      },
      resolve: async (query, _r, args, ctx) => reload(ctx, query, await run(ctx, args.uuid, args.input)),
    });
  return {
    registerClaim: t.prismaField({
      type: 'Claim',
      authScopes: { crm: true },
      errors: { types: problems, directResult: true, union: { name: 'RegisterClaimResult' } },
      description:
        'First notice of loss against a policy in force on the loss date: numbered, reserved, checklist opened.',
      args: {
        input: t.arg({
          description: 'The policy, the loss and who reports it.',
          type: RegisterClaimInput,
          required: true,
        }),
      },
      resolve: async (query, _r, args, ctx) => reload(ctx, query, await claimService.register(ctx, args.input)),
    }),
    moveClaim: claimCommand(
      'MoveClaim',
      'A plain move: documents_pending, with_underwriter (checklist complete), under_assessment, closed, withdrawn.',
      MoveClaimInput,
      claimService.move,
    ),
    adjustClaimReserve: claimCommand(
      'AdjustClaimReserve',
      'Sets the outstanding reserve, with a reason (before approval).',
      ReserveInput,
      claimService.adjustReserve,
    ),
    appointClaimAssessor: claimCommand(
      'AppointClaimAssessor',
      'Appoints the assessor (with the underwriter or under assessment).',
      AssessorInput,
      claimService.appointAssessor,
    ),
    recordClaimAssessment: claimCommand(
      'RecordClaimAssessment',
      "The assessor's report: assessed amount, salvage, notes.",
      AssessmentInput,
      claimService.recordAssessment,
    ),
    approveClaim: claimCommand(
      'ApproveClaim',
      'Approves: approved amount, excess from the product terms, net payable.',
      ApproveInput,
      claimService.approve,
    ),
    repudiateClaim: claimCommand(
      'RepudiateClaim',
      'Repudiates for a documented reason; releases the reserve.',
      RepudiateInput,
      claimService.repudiate,
    ),
    reopenClaim: claimCommand(
      'ReopenClaim',
      'Reopens a closed claim within the reopen window (→ under_assessment).',
      ReopenInput,
      claimService.reopen,
    ),
    updateClaim: claimCommand(
      'UpdateClaim',
      'Assigns a handler or records the police abstract number.',
      UpdateClaimInput,
      claimService.update,
    ),
  };
});
