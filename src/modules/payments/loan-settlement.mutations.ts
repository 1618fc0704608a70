import { builder } from '../../graphql/builder.ts';
import { money, MoneyRef } from '../../graphql/common.ts';
import { DomainRuleError, InvalidStateError, ValidationError } from '../../lib/problem.ts';
import type { SettlementFigures } from '../finance/loan/settlement.ts';
import { type EarlySettlementAnswer, settleIpfLoanEarly } from './loan-settlement.service.ts';
import { StkPushAckRef } from './payment.type.ts';

/** Early settlement of a premium-finance loan: quote, confirm and collect the payoff (docs/premium-finance.md "Premium finance"). */

const WaivedRef = builder.objectRef<SettlementFigures['waived'][number]>('IpfSettlementWaiver').implement({
  description: 'Part of the rebate waived on one schedule line (the latest lines first).',
  fields: (t) => ({
    instalment: t.exposeInt('seq', { description: 'Schedule line (1 is the deposit)' }),
    dueOn: t.exposeString('dueOn', { description: 'Y-m-d' }),
    amount: t.field({
      description: 'The amount waived on that line.',
      type: MoneyRef,
      resolve: (w) => money(w.amountMinor)!,
    }),
  }),
});

const EarlySettlementRef = builder.objectRef<EarlySettlementAnswer>('IpfEarlySettlement').implement({
  description:
    'An early-settlement figure of a loan: quoted (nothing held), or confirmed (held until validUntil) with the STK push collecting the payoff.',
  fields: (t) => ({
    loanUuid: t.string({ description: 'The loan (its uuid).', resolve: (s) => s.loan.uuid }),
    loanNo: t.string({ description: 'The loan number (IPF-YYYY-NNNNNN).', resolve: (s) => s.loan.loanNo }),
    loanStatus: t.string({ resolve: (s) => s.loan.status, description: 'The loan after this call' }),
    phase: t.string({
      description: 'quoted (nothing changed) or confirmed (the figure is held on the loan)',
      resolve: (s) => (s.held ? 'confirmed' : 'quoted'),
    }),
    asOf: t.string({ description: 'Y-m-d: the day the figure was worked out', resolve: (s) => s.figures.asOf }),
    outstanding: t.field({
      type: MoneyRef,
      description: 'Total repayable − paid',
      resolve: (s) => money(s.figures.outstandingMinor)!,
    }),
    rebate: t.field({
      type: MoneyRef,
      description: 'Unearned charges waived: ⌊charge × lines not yet due ÷ months⌋, at most what is owed',
      resolve: (s) => money(s.figures.rebateMinor)!,
    }),
    payoff: t.field({
      type: MoneyRef,
      description: 'What settles the loan: outstanding − rebate',
      resolve: (s) => money(s.figures.payoffMinor)!,
    }),
    instalmentsWaived: t.field({
      description: 'How the rebate is spread over the schedule lines not yet due, latest first.',
      type: [WaivedRef],
      resolve: (s) => s.figures.waived,
    }),
    validUntil: t.string({
      description: 'Y-m-d: the last day repayments reaching the payoff settle the loan at this figure (once confirmed)',
      resolve: (s) => s.figures.validUntil,
    }),
    payment: t.field({
      type: StkPushAckRef,
      nullable: true,
      description: 'The STK push collecting the payoff (confirmed only; null when nothing was left to pay)',
      resolve: (s) => s.payment,
    }),
    replayed: t.boolean({
      description: 'True when this answers an earlier confirmation with the same idempotency key',
      resolve: (s) => s.payment?.replayed ?? false,
    }),
  }),
});

const SettleIpfLoanEarlyInput = builder.inputType('SettleIpfLoanEarlyInput', {
  description: 'A loan to quote early settlement for, or to confirm it and prompt the payoff.',
  fields: (t) => ({
    uuid: t.string({ required: true, description: 'The loan' }),
    confirm: t.boolean({
      description: 'false or absent: the quote only; true: hold the figure and prompt the phone for the payoff',
    }),
    phone: t.string({ description: "The phone to prompt when confirming (default the client's)" }),
    idempotencyKey: t.string({
      description:
        'A key of yours: a retried confirmation answers the first (its figure and prompt) and never prompts twice (REST: the Idempotency-Key header)',
    }),
  }),
});

builder.mutationField('settleIpfLoanEarly', (t) =>
  t.field({
    type: EarlySettlementRef,
    authScopes: { bind: true },
    errors: {
      types: [ValidationError, InvalidStateError, DomainRuleError],
      directResult: true,
      union: { name: 'SettleIpfLoanEarlyResult' },
    },
    description:
      'Quotes the early settlement of an active premium-finance loan (changes nothing) or, confirmed, holds the figure and collects the payoff by STK push.',
    args: {
      input: t.arg({
        description: 'The loan to settle early, and whether to preview or confirm.',
        type: SettleIpfLoanEarlyInput,
        required: true,
      }),
    },
    resolve: (_r, args, ctx) => settleIpfLoanEarly(ctx, args.input),
  }),
);
