import { builder } from '../../graphql/builder.ts';
import { InsuredInputRef } from '../clients/insured.input.ts';
import { CoverBindPolicyInput, MedicalCoverInput, StandardCoverInput, TripInput } from '../covers/cover.type.ts';
import { saveOrBindProblems } from '../motor/motor.mutations.ts';
import { BoundPolicyRef } from './bind.mutations.ts';
import { bindCover } from './bind/cover-bind.ts';

/** Per line: the mutation, the argument carrying the risk (as REST spells it) and its input type. */
const BINDS = [
  { code: 'medical', name: 'bindMedicalPolicy', arg: 'medical', input: MedicalCoverInput, what: 'medical cover' },
  { code: 'travel', name: 'bindTravelPolicy', arg: 'trip', input: TripInput, what: 'a single trip' },
  { code: 'standard', name: 'bindStandardPolicy', arg: 'cover', input: StandardCoverInput, what: 'a standard product' },
] as const;

for (const b of BINDS) {
  builder.mutationField(b.name, (t) =>
    t.field({
      type: BoundPolicyRef,
      authScopes: { bind: true },
      errors: {
        types: saveOrBindProblems,
        directResult: true,
        union: { name: `${b.name[0].toUpperCase()}${b.name.slice(1)}Result` },
      },
      description: `Binds ${b.what}: re-prices with the chosen insurer, matches or creates the client, and raises the policy pending payment with 1–4 debit notes.`,
      args: {
        client: t.arg({
          type: InsuredInputRef,
          required: true,
          description: 'The policyholder: an existing client by clientNo, or the details of one to match or add.',
        }),
        policy: t.arg({
          type: CoverBindPolicyInput,
          required: true,
          description: 'The insurer chosen, the start date, the instalments and the figures the caller was shown.',
        }),
        [b.arg]: t.arg({ type: b.input, required: true, description: `The ${b.what} to bind.` }),
        prospectUuid: t.arg.string({ description: 'The prospect this policy is for: it moves to won' }),
      },
      resolve: (_r, args: Record<string, unknown>, ctx) =>
        bindCover(ctx, b.code, {
          client: args.client as never,
          policy: args.policy as never,
          risk: args[b.arg],
          prospectUuid: args.prospectUuid as string | null | undefined,
        }),
    }),
  );
}
