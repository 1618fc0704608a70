import type { InputObjectRef } from '@pothos/core';
import type { Context } from '../../context.ts';
import { builder } from '../../graphql/builder.ts';
import { DomainRuleError, InvalidStateError, ValidationError } from '../../lib/problem.ts';
import { ClaimStatusEnum } from './claim.type.ts';
import { claimService } from './claim.service.ts';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

const ThirdPartyInput = builder.inputType('ClaimThirdPartyInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    phone: t.string(),
    idNo: t.string(),
    registration: t.string({ description: "The third party's vehicle" }),
    insurer: t.string(),
    injured: t.boolean(),
    damage: t.string(),
  }),
});
const WitnessInput = builder.inputType('ClaimWitnessInput', {
  fields: (t) => ({ name: t.string({ required: true }), phone: t.string(), statement: t.string() }),
});

const RegisterClaimInput = builder.inputType('RegisterClaimInput', {
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
    lossPlace: t.string({ required: true }),
    description: t.string({ required: true }),
    thirdParties: t.field({ type: [ThirdPartyInput] }),
    witnesses: t.field({ type: [WitnessInput] }),
    policeAbstractNo: t.string(),
    antiTheftDevice: t.boolean({ description: 'Theft: an approved anti-theft device was fitted (excess terms)' }),
    reporterName: t.string({ description: 'Default: the policyholder' }),
    reporterPhone: t.string(),
    reporterRelationship: t.string(),
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
  fields: (t) => ({ to: t.field({ type: ClaimStatusEnum, required: true }), reason: t.string() }),
});
const ReserveInput = builder.inputType('AdjustClaimReserveInput', {
  fields: (t) => ({
    amount: t.field({ type: 'Shillings', required: true, description: 'Whole shillings: the new reserve' }),
    reason: t.string({ required: true }),
  }),
});
const AssessorInput = builder.inputType('AppointClaimAssessorInput', {
  fields: (t) => ({ name: t.string({ required: true }), phone: t.string(), firm: t.string() }),
});
const AssessmentInput = builder.inputType('RecordClaimAssessmentInput', {
  fields: (t) => ({
    assessedAmount: t.field({ type: 'Shillings', required: true, description: 'Whole shillings' }),
    salvage: t.field({ type: 'Shillings', description: 'Whole shillings' }),
    notes: t.string(),
  }),
});
const ApproveInput = builder.inputType('ApproveClaimInput', {
  fields: (t) => ({
    approvedAmount: t.field({ type: 'Shillings', required: true, description: 'Whole shillings, before the excess' }),
    reason: t.string(),
  }),
});
const RepudiateInput = builder.inputType('RepudiateClaimInput', {
  fields: (t) => ({
    reason: t.string({ required: true, description: 'A reason code (docs/claims.md "Claims")' }),
    note: t.string(),
  }),
});
const ReopenInput = builder.inputType('ReopenClaimInput', {
  fields: (t) => ({
    reason: t.string({ required: true }),
    reserve: t.field({ type: 'Shillings', description: 'Whole shillings' }),
  }),
});
const UpdateClaimInput = builder.inputType('UpdateClaimInput', {
  fields: (t) => ({
    assigneeId: t.int({ description: 'null unassigns' }),
    policeAbstractNo: t.string(),
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
