import { describe, expect, it } from 'vitest';
import { clientHeaders, INSTANT_RAIL, signIn, TODAY, useKit } from './kit.ts';

/**
 * The client-area statement with a credit note (docs/client-area.md "Statement"): a policy paid in full, then
 * cancelled on its start date, so the whole pro-rated premium comes back as a credit note and only stamp duty is
 * kept. The figures are worked by hand from the seeded rates and levies (as in test/motor-quote.test.ts), not read
 * from the service:
 *
 *   Simba General, private comprehensive, KES 1,500,000 at 3.5 %     basic    52,500.00
 *   Training levy 0.20 % of basic                                              105.00
 *   PHCF 0.25 % of basic                                                       131.25
 *   Stamp duty (flat, never refunded)                                           40.00
 *   Debit note (the premium)                                                52,776.25
 *   Receipt: M-Pesa collects whole shillings, so KES 52,777                 52,777.00
 *   Credit note on the start date: premium − stamp duty                    52,736.25
 *
 *   Running balance: 52,776.25 → −0.75 → −52,737.00 (the client is in credit by the refund and the 75 cents over).
 *   Totals: debits 52,776.25; credits 52,777.00 + 52,736.25 = 105,513.25.
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const o = t.useOrg({ fast: true });

const DEBIT_NOTE = 5_277_625;
const RECEIPT = 5_277_700;
const CREDIT_NOTE = 5_277_625 - 4_000;

describe('a statement with a credit note', () => {
  it('lists the debit note, the receipt and the credit note with a running balance that reconciles by hand', async () => {
    const pol = await o.activePolicy();
    const phone = await t.db.tenant(o.id, (tx) =>
      tx.client.findFirstOrThrow({ where: { clientNo: pol.client_no } }).then((c) => c.phone),
    );
    const cancellation = await o.cancel(pol.uuid, { reason: 'duplicate_cover', effective_date: TODAY });
    expect(cancellation.credit_note).toMatchObject({ number: `CN-${pol.policy_no}-1`, amount_minor: CREDIT_NOTE });
    const s = await signIn(o, phone);

    const r = await o.as('staff').get('/client-area/statement', { headers: clientHeaders(s) });
    expect(r.status, r.text).toBe(200);
    const st = r.body.data;
    const line = (kind: string) => st.lines.find((l: { kind: string }) => l.kind === kind);
    expect(line('debit_note')).toMatchObject({
      number: pol.debit_note.instalments[0].number,
      debit_minor: DEBIT_NOTE,
      credit_minor: 0,
    });
    expect(line('receipt')).toMatchObject({ debit_minor: 0, credit_minor: RECEIPT });
    expect(line('credit_note')).toMatchObject({
      number: `CN-${pol.policy_no}-1`,
      debit_minor: 0,
      credit_minor: CREDIT_NOTE,
    });
    // The rail stamps a receipt to the whole second, and the simulator pays at once: the receipt may share the debit
    // note's second and come first. Either way round, after both the client is 75 cents over; the credit note is last.
    expect(st.lines.map((l: { kind: string }) => l.kind)).toHaveLength(3);
    expect([DEBIT_NOTE, -RECEIPT]).toContain(st.lines[0].balance_minor);
    expect(st.lines.slice(1).map((l: Record<string, unknown>) => [l.kind, l.balance_minor])).toEqual([
      [st.lines[0].kind === 'receipt' ? 'debit_note' : 'receipt', -75],
      ['credit_note', -5_273_700],
    ]);
    expect(st.lines.every((l: { policy_no: string }) => l.policy_no === pol.policy_no)).toBe(true);
    expect(st).toMatchObject({
      opening_balance_minor: 0,
      total_debits_minor: 5_277_625,
      total_credits_minor: 10_551_325,
      closing_balance_minor: -5_273_700,
      closing_balance: -52_737,
    });
    // The same money from the staff side: the client's credit balance holds the refund and the 75 cents over.
    const balance = await o.as('staff').get(`/clients/${pol.client_no}/balance`);
    expect(balance.status, balance.text).toBe(200);
    expect(balance.body.data.credit.amount_minor).toBe(5_273_700);

    const html = await o.as('staff').get('/client-area/statement?format=html', { headers: clientHeaders(s) });
    expect(html.status).toBe(200);
    expect(html.text).toContain(`CN-${pol.policy_no}-1`);
  }, 120_000);
});
