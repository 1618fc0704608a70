import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import type { CollectionsHour, CollectionsSummary, PromptOutcome } from './ledger/collections.ts';
import { paymentService } from './payment.service.ts';

const CollectionsHourRef = builder.objectRef<CollectionsHour>('CollectionsHour').implement({
  description: 'One hour of the Nairobi day: receipts raised in it.',
  fields: (t) => ({
    hour: t.exposeInt('hour', { description: '0–23, Nairobi time' }),
    count: t.exposeInt('count', { description: 'Receipts paid in this hour.' }),
    amount: t.field({ type: MoneyRef, description: 'Their total.', resolve: (h) => money(h.amountMinor)! }),
  }),
});

const PromptOutcomeRef = builder.objectRef<PromptOutcome>('PromptOutcome').implement({
  description: 'STK prompts of the day with one status and Daraja result code.',
  fields: (t) => ({
    status: t.exposeString('status', { description: 'sending, pending, succeeded or failed' }),
    resultCode: t.exposeInt('resultCode', {
      nullable: true,
      description: 'Daraja ResultCode (0 success); null until known',
    }),
    count: t.exposeInt('count', { description: 'How many prompts ended with this status and result code.' }),
  }),
});

const CollectionsSummaryRef = builder.objectRef<CollectionsSummary>('CollectionsSummary').implement({
  description: "A day's collections, limited to the receipts and prompts the caller may see.",
  fields: (t) => ({
    date: t.exposeString('date', { description: 'The Nairobi calendar day (Y-m-d)' }),
    count: t.exposeInt('count', { description: 'Receipts paid that day' }),
    amount: t.field({ type: MoneyRef, description: 'Their total', resolve: (s) => money(s.amountMinor)! }),
    byHour: t.field({ type: [CollectionsHourRef], description: 'Every hour, 0–23', resolve: (s) => s.byHour }),
    prompts: t.field({
      type: [PromptOutcomeRef],
      description: 'STK prompts sent that day, by status and result code',
      resolve: (s) => s.prompts,
    }),
    successRate: t.float({
      nullable: true,
      description: 'Succeeded ÷ (succeeded + failed) prompts, 0–1; null before any has a result',
      resolve: (s) => {
        const n = (status: string) => s.prompts.filter((p) => p.status === status).reduce((a, p) => a + p.count, 0);
        const done = n('succeeded') + n('failed');
        return done ? n('succeeded') / done : null;
      },
    }),
  }),
});

builder.queryField('collectionsSummary', (t) =>
  t.field({
    type: CollectionsSummaryRef,
    authScopes: { read: true },
    description:
      "A Nairobi day's collections (default today): receipts and their total by hour, and STK prompts by outcome. Agents see their reach only.",
    args: { date: t.arg.string({ description: 'Y-m-d (default today, Nairobi)' }) },
    resolve: (_r, args, ctx) => paymentService.collections(ctx, args.date),
  }),
);
