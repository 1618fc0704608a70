import { describe, expect, it } from 'vitest';
import { INSTANT_RAIL, useKit } from './kit.ts';
import { activePolicy, pendingPolicy } from './kit/policies.ts';

/**
 * An agent reaching a client only through a policy they sell sees that client, but not the client's other agents'
 * policies (docs/motor-and-clients.md), nor their money: the client's balance lists the debit notes of the policies
 * within the agent's reach only, and receipts are those of such policies or of clients the agent owns
 * (docs/payments.md). Found by an outside check (2026-12-03): the balance listed, and the receipts named, a policy the
 * same agent got 404 for.
 */
const t = useKit(INSTANT_RAIL, { jobs: true });
const [o] = t.useOrgs([{ fast: true, tokens: ['staff', 'agent'] }]);

describe("an agent's reach of a client's money", () => {
  it('the balance and the receipts of a client reached through one policy name no other policy of theirs', async () => {
    const agent = o.as('agent');
    const staff = o.as('staff');
    // Three policies made by staff, then moved under one client, which agent1 (the agent key) neither made nor
    // sells; agent1 sells the first only. The first two are paid (a receipt each), the third is owing.
    const sold = await activePolicy(o);
    const other = await activePolicy(o);
    const owing = await pendingPolicy(o);
    const agent1 = o.users.agent1.id;
    const clientId = await t.db.tenant(o.id, async (tx) => {
      const p = await tx.policy.findUniqueOrThrow({ where: { uuid: sold.uuid } });
      await tx.client.update({ where: { id: p.clientId }, data: { salesPersonId: null } });
      await tx.policy.update({ where: { id: p.id }, data: { salesPersonId: agent1 } });
      for (const uuid of [other.uuid, owing.uuid])
        await tx.policy.update({ where: { uuid }, data: { clientId: p.clientId } });
      await tx.receipt.updateMany({ where: { policy: { uuid: other.uuid } }, data: { clientId: p.clientId } });
      return p.clientId;
    });
    const clientNo = sold.client_no;
    const client = await t.db.tenant(o.id, (tx) => tx.client.findUniqueOrThrow({ where: { id: clientId } }));
    expect(client.createdByUserId).not.toBe(agent1);

    // Within reach: the client, the policy agent1 sells. Out of reach: the other two.
    expect((await agent.get(`/clients/${clientNo}`)).status).toBe(200);
    expect((await agent.get(`/policies/${sold.uuid}`)).status).toBe(200);
    expect((await agent.get(`/policies/${other.uuid}`)).status).toBe(404);
    expect((await agent.get(`/policies/${owing.uuid}`)).status).toBe(404);

    // Staff: the owing note in the balance, both receipts.
    const owingNotes = owing.debit_note.instalments.map((i: { number: string }) => i.number);
    const staffBalance = await staff.get(`/clients/${clientNo}/balance`);
    expect(staffBalance.status, staffBalance.text).toBe(200);
    expect(staffBalance.body.data.debit_notes.map((n: { number: string }) => n.number)).toEqual(owingNotes);
    const staffReceipts = await staff.get(`/receipts?client_no=${clientNo}&limit=100`);
    const policyNos = (r: typeof staffReceipts) => r.body.data.map((x: { policy_no: string }) => x.policy_no).sort();
    expect(policyNos(staffReceipts)).toEqual([sold.policy_no, other.policy_no].sort());

    // agent1: none of the other two policies' notes or receipts, by REST or GraphQL.
    const balance = await agent.get(`/clients/${clientNo}/balance`);
    expect(balance.status, balance.text).toBe(200);
    expect(balance.body.data.debit_notes).toEqual([]);
    expect(balance.body.data.outstanding).toEqual({ amount: 0, amount_minor: 0 });
    const g = await agent.gql('query($c: String!) { clientBalance(clientNo: $c) { openDebitNotes { number } } }', {
      c: clientNo,
    });
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.clientBalance.openDebitNotes).toEqual([]);
    expect(policyNos(await agent.get(`/receipts?client_no=${clientNo}&limit=100`))).toEqual([sold.policy_no]);
    const otherReceipt = staffReceipts.body.data.find((x: { policy_no: string }) => x.policy_no === other.policy_no);
    expect((await agent.get(`/receipts/${otherReceipt.receipt_no}`)).status).toBe(404);
  });
});
