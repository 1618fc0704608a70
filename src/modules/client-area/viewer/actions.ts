import { requireCustomer } from '../../../auth/customer.ts';
import type { Context } from '../../../context.ts';
import { isUuid, normalisePhone } from '../../../lib/identifiers.ts';
import { AppError, DuplicateClientError, type FieldError, ValidationError } from '../../../lib/problem.ts';
import { claimService } from '../../claims/claim.service.ts';
import { clientService } from '../../clients/client.service.ts';
import { paymentService, STK_MAX_AMOUNT } from '../../payments/payment.service.ts';
import { CLAIM_INCLUDE, type ViewerClaim, viewerClaim } from './read.ts';
import { promptShillings } from '../../../lib/money.ts';

/**
 * What the signed-in client may change or start. Each resolves the record from `ctx.customer` first and then calls
 * the owning module's service (clients, payments, claims), which authorizes the organisation's key, validates,
 * audits and emits as for any other caller.
 */

export interface ContactInput {
  phone?: string | null;
  email?: string | null;
  altPhone?: string | null;
  physicalAddress?: string | null;
}

/**
 * The customer's own contact fields only (name and identity stay with the organisation); audited. A phone changed here
 * by a client signed in with a one-time code is trusted for codes at once (docs/motor-and-clients.md "Phone changes").
 */
export async function updateViewerContact(ctx: Context, input: ContactInput) {
  const { clientNo } = requireCustomer(ctx);
  const patch = Object.fromEntries(
    (['phone', 'email', 'altPhone', 'physicalAddress'] as const)
      .filter((k) => input[k] !== undefined)
      .map((k) => [k, input[k]]),
  );
  return clientService.update(ctx, clientNo, patch).catch((e: unknown) => {
    if (!(e instanceof DuplicateClientError)) throw e;
    // Never who holds the phone: the caller is a member of the public (as registration answers).
    throw new AppError('duplicate_client', {
      detail: 'This phone is registered to another client: use another number, or ask the organisation',
      extra: { matches: [] },
    });
  });
}

export interface ViewerPayInput {
  debitNoteNo?: string | null;
  phone?: string | null;
  amountMinor?: bigint | number | null;
  idempotencyKey?: string | null;
}

/**
 * An STK push for one of the client's open debit notes, in cents. M-Pesa collects whole shillings, so the amount is a
 * multiple of 100 cents; by default the note's outstanding amount rounded up to the shilling (docs/payments.md "Payments": the
 * cents go on to the next open note, or to credit). The phone defaults to the client's own.
 */
export async function viewerPay(ctx: Context, input: ViewerPayInput) {
  const { clientId } = requireCustomer(ctx);
  const number = input.debitNoteNo?.trim().toUpperCase() ?? '';
  // A retry with the key answers the first push before anything that push changed (the amount due) is judged again.
  const prior = input.idempotencyKey ? await paymentService.priorPush(ctx, input.idempotencyKey) : null;
  if (prior) return replayViewerPay(ctx, prior, clientId, number, input);
  const note = number
    ? await ctx.tx((tx) =>
        tx.debitNote.findFirst({
          where: { number, policy: { clientId } },
          include: { policy: { select: { client: { select: { phone: true } } } } },
        }),
      )
    : null;
  if (!note) throw new ValidationError([{ field: 'debitNoteNo', message: 'no such debit note of yours' }]);
  const outstanding = note.amountMinor - note.paidMinor - note.creditedMinor;
  if (outstanding <= 0n) {
    throw new ValidationError([{ field: 'debitNoteNo', message: 'nothing is outstanding on this debit note' }]);
  }
  const amountMinor = input.amountMinor == null ? promptShillings(outstanding) * 100n : BigInt(input.amountMinor);
  const errors: FieldError[] = [];
  if (amountMinor < 100n || amountMinor > BigInt(STK_MAX_AMOUNT) * 100n || amountMinor % 100n !== 0n) {
    errors.push({
      field: 'amountMinor',
      message: `cents, a whole number of shillings (a multiple of 100) from 100 to ${STK_MAX_AMOUNT * 100}`,
    });
  }
  if (errors.length) throw new ValidationError(errors);
  const out = await paymentService.initiate(ctx, {
    phone: input.phone ?? note.policy.client.phone,
    amount: Number(amountMinor / 100n),
    account: note.number,
    purpose: 'premium',
    idempotencyKey: input.idempotencyKey,
  });
  return { ...out, debitNoteNo: note.number };
}

type PriorPush = NonNullable<Awaited<ReturnType<typeof paymentService.priorPush>>>;

/** The first push under this key, answered again; a key first used for anything else is refused as reused. */
async function replayViewerPay(
  ctx: Context,
  prior: PriorPush,
  clientId: number,
  number: string,
  input: ViewerPayInput,
) {
  const same =
    prior.clientId === clientId &&
    prior.account === number &&
    (input.phone == null || normalisePhone(input.phone) === prior.phone) &&
    (input.amountMinor == null || BigInt(input.amountMinor) === prior.amountMinor);
  if (!same) {
    throw new AppError('idempotency_key_reused', {
      detail: 'Idempotency-Key was first used for a different request; use a new key for a new request',
    });
  }
  const out = await paymentService.initiate(ctx, {
    phone: prior.phone,
    amount: Number(prior.amountMinor / 100n),
    account: prior.account,
    purpose: prior.purpose,
    idempotencyKey: input.idempotencyKey,
  });
  return { ...out, debitNoteNo: prior.account };
}

export interface ViewerClaimInput {
  policyUuid?: string | null;
  registration?: string | null;
  insuredId?: number | null;
  cause?: string | null;
  lossDate?: string | null;
  lossTime?: string | null;
  lossPlace?: string | null;
  description?: string | null;
  policeAbstractNo?: string | null;
  antiTheftDevice?: boolean | null;
  estimatedLossMinor?: bigint | null;
  thirdParties?: unknown;
  witnesses?: unknown;
}

/** A first notice of loss on one of the client's own policies, through the claims service (channel client_area). */
export async function viewerRegisterClaim(ctx: Context, input: ViewerClaimInput): Promise<ViewerClaim> {
  const { clientId } = requireCustomer(ctx);
  const uuid = input.policyUuid?.trim() ?? '';
  const policy = isUuid(uuid) ? await ctx.tx((tx) => tx.policy.findFirst({ where: { uuid, clientId } })) : null;
  // Another client's policy reads exactly like a missing one.
  if (!policy) throw new ValidationError([{ field: 'policyUuid', message: 'no such policy of yours' }]);
  const { policyUuid: _p, ...notice } = input;
  const claim = await claimService.register(ctx, {
    ...notice,
    policyId: policy.uuid,
    channel: 'client_area',
  });
  const row = await ctx.tx((tx) => tx.claim.findUniqueOrThrow({ where: { id: claim.id }, include: CLAIM_INCLUDE }));
  return viewerClaim(row);
}
