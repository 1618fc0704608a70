import { builder } from '../../graphql/builder.ts';
import { KEEPS_REACH } from '../../graphql/access.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { onePolicy } from '../access/policy.visibility.ts';

/** Credit and debit notes as GraphQL shows them (notes.service.ts raises them), with their levy lines. */

interface LevyLine {
  code: string;
  name: string;
  amountMinor: bigint;
}

export const NoteLevyRef = builder.objectRef<LevyLine>('NoteLevyLine').implement({
  description: "One percent levy's share of a mid-term change (signed on an endorsement effect).",
  fields: (t) => ({
    code: t.exposeString('code', { description: 'The levy code (Levy.code in Query.levies).' }),
    name: t.exposeString('name', { description: 'The levy as printed on the note.' }),
    amount: t.field({
      type: MoneyRef,
      description: "The levy's share; on an endorsement effect negative for a credit, on a credit note positive.",
      resolve: (l) => money(l.amountMinor)!,
    }),
  }),
});

interface Application {
  debit_note_id: number;
  number: string;
  amount_minor: string;
}

const CreditApplicationRef = builder.objectRef<Application>('CreditNoteApplication').implement({
  description: 'Part of a credit note applied to one open debit note.',
  fields: (t) => ({
    debitNoteNo: t.exposeString('number', { description: 'The debit note number the credit was applied to.' }),
    amount: t.field({
      type: MoneyRef,
      description: 'How much of the credit settled this debit note (added to its credited).',
      resolve: (a) => money(BigInt(a.amount_minor))!,
    }),
  }),
});

builder.prismaObject('CreditNote', {
  select: { id: true, policyId: true },
  ...onePolicy,
  description:
    "Money owed back on a policy (endorsement or cancellation): applied first to open debit notes, the rest refunded to the client's credit, or to the premium-finance lender (refundPayee).",
  fields: (t) => ({
    number: t.exposeString('number', { description: 'CN-<policy_no>-<n>' }),
    kind: t.exposeString('kind', { description: 'endorsement or cancellation' }),
    amount: t.field({
      select: { amountMinor: true },
      type: MoneyRef,
      description: 'The credit: basicPremium plus taxes (always positive); applied plus refunded.',
      resolve: (c) => money(c.amountMinor)!,
    }),
    basicPremium: t.field({
      select: { basicMinor: true },
      type: MoneyRef,
      description: 'The basic premium credited (unearned, or the negative endorsement effect as a positive amount).',
      resolve: (c) => money(c.basicMinor)!,
    }),
    taxes: t.field({
      select: { taxesMinor: true },
      type: MoneyRef,
      description: 'The percent levies credited (sum of levies).',
      resolve: (c) => money(c.taxesMinor)!,
    }),
    levies: t.field({
      select: { breakdown: true },
      type: [NoteLevyRef],
      description: "Each percent levy's share of the credit.",
      resolve: (c) =>
        ((c.breakdown as { levies?: { code: string; name: string; amount_minor: string }[] } | null)?.levies ?? []).map(
          (l) => ({
            code: l.code,
            name: l.name,
            amountMinor: BigInt(l.amount_minor),
          }),
        ),
    }),
    applied: t.field({
      select: { appliedMinor: true },
      type: MoneyRef,
      description: "Applied to the policy's open debit notes.",
      resolve: (c) => money(c.appliedMinor)!,
    }),
    applications: t.field({
      select: { applications: true },
      type: [CreditApplicationRef],
      description: 'The open debit notes the credit settled, oldest due first (their sum is applied).',
      resolve: (c) => (c.applications as unknown as Application[]) ?? [],
    }),
    refunded: t.field({
      select: { refundedMinor: true },
      type: MoneyRef,
      description: "Refunded to refundPayee: credited to the client's balance, or owed to the premium-finance lender.",
      resolve: (c) => money(c.refundedMinor)!,
    }),
    refundPayee: t.exposeString('refundPayee', {
      description: "client (the client's credit balance) or lender (the policy's premium-finance lender)",
    }),
    breakdown: t.field({
      select: { breakdown: true },
      type: 'JSON',
      description:
        'The stored itemisation: basic_minor, levies, taxes_minor, total_minor (cents, as strings) and explanation lines (days, vehicle, operation).',
      resolve: (c) => c.breakdown,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the note was raised.' }),
  }),
});

builder.prismaObjectFields('DebitNote', (t) => ({
  kind: t.exposeString('kind', { description: 'instalment (bind or renewal), endorsement or reinstatement' }),
  credited: t.field({
    type: MoneyRef,
    description: 'Settled by credit notes rather than payment.',
    select: { creditedMinor: true },
    resolve: (d) => money(d.creditedMinor)!,
  }),
  breakdown: t.field({
    type: 'JSON',
    nullable: true,
    description: 'Itemised basic and levies of an endorsement or reinstatement note.',
    select: { breakdown: true },
    resolve: (d) => d.breakdown ?? null,
  }),
}));

// A relation, so Pothos folds it into the policy's query (no query per policy).
builder.prismaObjectFields('Policy', (t) => ({
  creditNotes: t.relation('creditNotes', {
    ...KEEPS_REACH,
    description: 'Credit notes (endorsements and cancellations), oldest first.',
    query: { orderBy: { id: 'asc' } },
  }),
}));
