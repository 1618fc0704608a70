import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { deriveCallbackToken } from '../../src/modules/payments/callback-token.ts';
import { TODAY } from '../helpers/clock.ts';
import { waitFor } from './wait.ts';
import type { Org } from './org.ts';

export interface ClaimSpec {
  /** Net payable, cents (the reserve is set to it, as approval does). */
  net: bigint;
  status?: 'approved' | 'under_assessment' | 'settled';
  /** The user who registered it (an agent sees the claims they registered). */
  createdByUserId?: number;
  assigneeUserId?: number;
}

let seq = 0;

/**
 * A claim on policy `policyUuid` in the state a payout test needs, written through the database: approval's own
 * path (register, checklist, assessment, approve) is the claims core's, tested in claims.test.ts, and these files test
 * what happens after it. Its reserve ledger is what approval leaves: one movement to the net payable.
 */
export async function approvedClaim(
  o: Org,
  policyUuid: string,
  spec: ClaimSpec,
): Promise<{ id: number; uuid: string }> {
  const n = String((seq += 1)).padStart(4, '0');
  return o.t.db.tenant(o.id, async (tx) => {
    const pol = await tx.policy.findUniqueOrThrow({ where: { uuid: policyUuid } });
    const excess = 1_000_000n;
    const claim = await tx.claim.create({
      data: {
        tenantId: o.id,
        uuid: randomUUID(),
        claimNo: `CLM-2026-9${String(process.pid % 100).padStart(2, '0')}${n}`,
        policyId: pol.id,
        clientId: pol.clientId,
        insurerId: pol.insurerId,
        productLine: pol.productLine,
        causeCode: 'accident',
        status: spec.status ?? 'approved',
        lossDate: new Date('2026-06-14T00:00:00Z'),
        lossPlace: 'Thika Road',
        description: 'Rear-ended in traffic',
        reporterName: 'Policyholder',
        channel: 'api',
        reportedAt: new Date(),
        lateNotification: false,
        reserveMinor: spec.net,
        approvedAmountMinor: spec.net + excess,
        excessMinor: excess,
        netPayableMinor: spec.net,
        approvedAt: new Date(),
        createdByUserId: spec.createdByUserId ?? o.users.exec.id,
        assigneeUserId: spec.assigneeUserId ?? null,
      },
    });
    await tx.claimReserveMovement.create({
      data: {
        tenantId: o.id,
        claimId: claim.id,
        kind: 'approval',
        amountMinor: spec.net,
        balanceAfterMinor: spec.net,
        reason: 'Approved: reserve set to the net payable',
      },
    });
    return { id: claim.id, uuid: claim.uuid };
  });
}

/** The claim's money and ledger as stored. */
export function claimRow(o: Org, uuid: string) {
  return o.t.db.tenant(o.id, (tx) =>
    tx.claim.findUniqueOrThrow({
      where: { uuid },
      include: { payments: { orderBy: { id: 'asc' } }, reserves: { orderBy: { id: 'asc' } }, history: true },
    }),
  );
}

/** POST /claims/{uuid}/payments as `role` (staff unless told), under a fresh Idempotency-Key. */
export function payClaim(
  o: Org,
  uuid: string,
  body: Record<string, unknown>,
  role: 'staff' | 'agent' | 'readonly' | 'admin' = 'staff',
) {
  return o.api.post(`/claims/${uuid}/payments`, { token: o.tokens[role], body, idempotencyKey: randomUUID() });
}

/** Polls GET /claims/{uuid}/payments/{payment} until the payment is `status`. */
export async function paymentIn(o: Org, claimUuid: string, paymentUuid: string, status: string) {
  const r = await waitFor(
    `payment ${paymentUuid} ${status}`,
    () => o.api.get(`/claims/${claimUuid}/payments/${paymentUuid}`, { token: o.tokens.staff }),
    (x) => x.status !== 200 || x.body.data.status === status,
  );
  expect(r.status, r.text).toBe(200);
  return r.body.data;
}

/** The organisation's current B2C ResultURL (its M-Pesa callback token; derived here, stored nowhere). */
export async function resultUrl(o: Org, kind: 'result' | 'timeout' = 'result'): Promise<string> {
  const app = o.t.app!;
  const ch = await o.t.db.system((tx) => tx.mpesaChannel.findUniqueOrThrow({ where: { tenantId: o.id } }));
  const token = deriveCallbackToken(app.services.config, o.id, ch.generation);
  return `${o.t.origin}/api/v1/payment/b2c/${kind}/${token}`;
}

/** A first notice of loss for `pol`'s bound vehicle: a motor accident today (TODAY), the body POST /claims takes. */
export function motorNotice(pol: { uuid: string; regno: string }, extra: Record<string, unknown> = {}) {
  return {
    policy_uuid: pol.uuid,
    regno: pol.regno,
    cause: 'accident',
    loss_date: TODAY,
    loss_time: '07:30',
    loss_place: 'Thika Road, Roysambu',
    description: 'Rear-ended in traffic',
    ...extra,
  };
}
