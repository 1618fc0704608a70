import { z } from 'zod';

/**
 * Every queue, declared once: name, payload schema (ids only), retry policy, and cron where it is scheduled.
 * Workers live beside this file and call services; they never touch the database themselves.
 */
export const QUEUES = {
  purgeExpired: {
    name: 'maintenance.purge-expired',
    payload: z.object({}).strict(),
    options: { retryLimit: 3, retryDelay: 60, retryBackoff: true, expireInSeconds: 300 },
    cron: '17 * * * *',
  },
  /** Outbox event → one webhook delivery per subscribed endpoint (idempotent: a dispatched event is skipped). */
  dispatchEvent: {
    name: 'events.dispatch',
    payload: z.object({ eventId: z.uuid() }).strict(),
    options: { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 60 },
  },
  /**
   * One attempt of a webhook delivery. The webhook retry schedule is the delivery's own (delivery-state.ts, sent
   * with startAfter); pg-boss retries only cover a crashed worker, and a duplicate attempt is refused by the lease.
   */
  deliverWebhook: {
    name: 'webhooks.deliver',
    payload: z.object({ deliveryId: z.uuid() }).strict(),
    options: { retryLimit: 2, retryDelay: 30, expireInSeconds: 120 },
  },
  /** Every minute: events left undispatched and deliveries whose job was lost (a crash between commit and send). */
  sweepOutbox: {
    name: 'events.sweep',
    payload: z.object({}).strict(),
    options: { retryLimit: 0, expireInSeconds: 120 },
    cron: '* * * * *',
  },
  /** Simulated M-Pesa: the customer answers a prompt; the Daraja callback is POSTed to the service. */
  mpesaSimResolve: {
    name: 'rails.mpesa-sim.resolve',
    payload: z.object({ checkoutRequestId: z.string().min(1) }).strict(),
    options: { retryLimit: 3, retryDelay: 2, retryBackoff: true, expireInSeconds: 60 },
  },
  /**
   * Issue whatever certificates are due for one policy (stage after stage). Idempotent: rows are unique per
   * (policy, vehicle, stage, series) and an attempt claims its row (`issuing`, committed) before calling the registry.
   * A registry that does not answer (a throw) is retried; its refusals are final (the certificate is failed, a manual
   * issue retries). A re-issue after reinstatement waits, unfailed, until the previous series is cancelled at the
   * registry; recording that cancellation sends this job again.
   */
  issueCertificate: {
    name: 'certificates.issue',
    payload: z.object({ policyId: z.number().int().positive() }).strict(),
    options: { retryLimit: 5, retryDelay: 10, retryBackoff: true, expireInSeconds: 300 },
  },
  /**
   * At start and every PAYMENTS_SWEEP_SECONDS (singleton): open callbacks replayed, pending STK pushes past
   * MPESA_RECONCILE_AFTER_MS asked of the rail, requests in doubt and the paybill statement reconciled; then
   * due-but-missing certificates.
   */
  reconcilePayments: {
    name: 'payments.reconcile',
    payload: z.object({}).strict(),
    options: { retryLimit: 0, expireInSeconds: 120 },
    cron: '* * * * *',
  },
  /**
   * Daily at 00:05 Nairobi (and on demand): time-based policy states (expired, lapsed, not_taken_up), renewal notices,
   * expiry of stale previews. Idempotent: each move is a guarded transition.
   */
  policyLifecycle: {
    name: 'policies.lifecycle',
    payload: z.object({ asOf: z.string().optional() }).strict(),
    options: { retryLimit: 3, retryDelay: 60, retryBackoff: true, expireInSeconds: 900 },
    cron: '5 0 * * *',
  },
  /**
   * Cancel one cancel_pending certificate at the registry (policy cancellation, vehicle removal). Sent from inside
   * the requesting transaction with a short delay: a run that finds the certificate still `issued` (not yet
   * committed) fails and is retried; the minute sweep re-sends what is left.
   */
  cancelCertificate: {
    name: 'certificates.cancel',
    payload: z.object({ certificateId: z.number().int().positive() }).strict(),
    options: { retryLimit: 8, retryDelay: 3, retryBackoff: true, expireInSeconds: 300 },
  },
  /**
   * Daily at 00:10 Nairobi (and on demand): claims past their service level (claim.sla_breached, once per status
   * entered). Idempotent: the notice is recorded on the claim in the event's transaction.
   */
  claimsDaily: {
    name: 'claims.daily',
    payload: z.object({ asOf: z.string().optional() }).strict(),
    options: { retryLimit: 3, retryDelay: 60, retryBackoff: true, expireInSeconds: 900 },
    cron: '10 0 * * *',
  },
  /** Send one recorded claim payout (B2C) to the rail; idempotent: only a `pending` payout is sent, once. */
  claimPayout: {
    name: 'claims.payout',
    payload: z.object({ paymentId: z.number().int().positive() }).strict(),
    options: { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 120 },
  },
  /** Every minute: payouts left pending (a lost job) re-sent, sent ones without a result asked of the rail. */
  sweepClaimPayouts: {
    name: 'claims.payout-sweep',
    payload: z.object({}).strict(),
    options: { retryLimit: 0, expireInSeconds: 120 },
    cron: '* * * * *',
  },
  /** Simulated Daraja B2C: the payment completes (or fails) and the Result is POSTed to the service's ResultURL. */
  b2cSimResolve: {
    name: 'rails.b2c-sim.resolve',
    payload: z.object({ originatorConversationId: z.string().min(1) }).strict(),
    options: { retryLimit: 3, retryDelay: 2, retryBackoff: true, expireInSeconds: 60 },
  },
  /** Daily at 00:15 Nairobi (and on demand): prospects whose follow-up date has come (prospect.follow_up_due, once per date). */
  prospectsDaily: {
    name: 'prospects.daily',
    payload: z.object({ asOf: z.string().optional() }).strict(),
    options: { retryLimit: 3, retryDelay: 60, retryBackoff: true, expireInSeconds: 900 },
    cron: '15 0 * * *',
  },
  /** Hand one SMS recipient to the gateway (retried with backoff for transient gateway answers 500/501). */
  smsSend: {
    name: 'sms.send',
    payload: z.object({ recipientId: z.number().int().positive() }).strict(),
    options: { retryLimit: 5, retryDelay: 10, retryBackoff: true, expireInSeconds: 120 },
  },
  /**
   * A client-area sign-in code, after the request was answered (docs/client-area.md "Sign-in"): a client's handset
   * gets a fresh code by SMS, a stranger nothing. A lost job is a code never sent: the customer asks again.
   */
  clientAreaOtp: {
    name: 'client-area.otp',
    payload: z.object({ tenantId: z.number().int().positive(), otpId: z.number().int().positive() }).strict(),
    options: { retryLimit: 3, retryDelay: 1, retryBackoff: true, expireInSeconds: 60 },
  },
  /** Every minute: recipients left queued (a lost job) or due a retry are sent again. */
  sweepSms: {
    name: 'sms.sweep',
    payload: z.object({}).strict(),
    options: { retryLimit: 0, expireInSeconds: 120 },
    cron: '* * * * *',
  },
  /** Simulated bulk-SMS gateway: the handset's delivery report, POSTed back to the service later. */
  smsSimDeliver: {
    name: 'rails.sms-sim.deliver',
    payload: z.object({ gatewayMessageId: z.string().min(1) }).strict(),
    options: { retryLimit: 3, retryDelay: 2, retryBackoff: true, expireInSeconds: 60 },
  },
  /**
   * Ask the lender to decide one submitted application. Idempotent: the call is recorded (ipf_lender_calls) before
   * it is made, the lender treats a repeat of our reference as the same request, and only a `submitted` application
   * takes the answer.
   */
  ipfDecide: {
    name: 'ipf.decide',
    payload: z.object({ applicationId: z.number().int().positive() }).strict(),
    options: { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 120 },
  },
  /**
   * Ask the lender to pay the insurer a loan's principal once its deposit is paid; the confirmed payment settles the
   * policy's debit note and activates the policy. Idempotent the same way: only an `awaiting_deposit` loan is funded.
   */
  ipfDisburse: {
    name: 'ipf.disburse',
    payload: z.object({ loanId: z.number().int().positive() }).strict(),
    options: { retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 120 },
  },
  /** Every minute: submitted applications without a decision and paid deposits without a disbursement, sent again. */
  sweepIpf: {
    name: 'ipf.sweep',
    payload: z.object({}).strict(),
    options: { retryLimit: 0, expireInSeconds: 120 },
    cron: '* * * * *',
  },
  /**
   * Daily at 00:20 Nairobi (and on demand): reminders before due dates, overdue instalments (ipf.instalment_overdue,
   * once each), defaults past the grace days (cancellation for non-payment, refund to the lender), expired
   * applications. Idempotent: each move is a guarded transition and each notice is marked.
   */
  ipfDaily: {
    name: 'ipf.daily',
    payload: z.object({ asOf: z.string().optional() }).strict(),
    options: { retryLimit: 3, retryDelay: 60, retryBackoff: true, expireInSeconds: 900 },
    cron: '20 0 * * *',
  },
  /**
   * A sandbox organisation's clock advance (src/modules/sandbox/advance.ts), queued by the request; every minute
   * (no organisation named) any advance whose job was lost is taken up again. One advancer per organisation (an
   * advisory lock); each day's progress is committed, so a retry resumes where the last attempt stopped.
   */
  sandboxAdvance: {
    name: 'sandbox.advance',
    payload: z.object({ tenantId: z.number().int().positive().optional() }).strict(),
    options: { retryLimit: 3, retryDelay: 10, retryBackoff: true, expireInSeconds: 1800 },
    cron: '* * * * *',
  },
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES]['name'];
