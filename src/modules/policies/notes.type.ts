import { builder } from '../../graphql/builder.ts';
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
    code: t.exposeString('code'),
    name: t.exposeString('name'),
    amount: t.field({ type: MoneyRef, resolve: (l) => money(l.amountMinor)! }),
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
    debitNoteNo: t.exposeString('number'),
    amount: t.field({ type: MoneyRef, resolve: (a) => money(BigInt(a.amount_minor))! }),
  }),
});

builder.prismaObject('CreditNote', {
  ...onePolicy,
  description:
    "Money owed back on a policy (endorsement or cancellation): applied first to open debit notes, the rest refunded to the client's credit, or to the premium-finance lender (refundPayee).",
  fields: (t) => ({
    number: t.exposeString('number', { description: 'CN-<policy_no>-<n>' }),
    kind: t.exposeString('kind', { description: 'endorsement or cancellation' }),
    amount: t.field({ type: MoneyRef, resolve: (c) => money(c.amountMinor)! }),
    basicPremium: t.field({ type: MoneyRef, resolve: (c) => money(c.basicMinor)! }),
    taxes: t.field({ type: MoneyRef, resolve: (c) => money(c.taxesMinor)! }),
    levies: t.field({
      type: [NoteLevyRef],
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
      type: MoneyRef,
      description: "Applied to the policy's open debit notes.",
      resolve: (c) => money(c.appliedMinor)!,
    }),
    applications: t.field({
      type: [CreditApplicationRef],
      resolve: (c) => (c.applications as unknown as Application[]) ?? [],
    }),
    refunded: t.field({
      type: MoneyRef,
      description: "Refunded to refundPayee: credited to the client's balance, or owed to the premium-finance lender.",
      resolve: (c) => money(c.refundedMinor)!,
    }),
    refundPayee: t.exposeString('refundPayee', {
      description: "client (the client's credit balance) or lender (the policy's premium-finance lender)",
    }),
    breakdown: t.field({ type: 'JSON', resolve: (c) => c.breakdown }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.prismaObjectFields('DebitNote', (t) => ({
  kind: t.exposeString('kind', { description: 'instalment (bind or renewal), endorsement or reinstatement' }),
  credited: t.field({
    type: MoneyRef,
    description: 'Settled by credit notes rather than payment.',
    resolve: (d) => money(d.creditedMinor)!,
  }),
  breakdown: t.field({
    type: 'JSON',
    nullable: true,
    description: 'Itemised basic and levies of an endorsement or reinstatement note.',
    resolve: (d) => d.breakdown ?? null,
  }),
}));

// A relation, so Pothos folds it into the policy's query (no query per policy).
builder.prismaObjectFields('Policy', (t) => ({
  creditNotes: t.relation('creditNotes', {
    description: 'Credit notes (endorsements and cancellations), oldest first.',
    query: { orderBy: { id: 'asc' } },
  }),
}));
