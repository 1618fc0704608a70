import { registerClient, verifyOtp } from './sign-in/sign-in.ts';
import { requestOtp, sendCode } from './sign-in/request.ts';
import { updateViewerContact, viewerPay, viewerRegisterClaim } from './viewer/actions.ts';
import { viewerClaims, viewerDetails, viewerLoans, viewerPolicies } from './viewer/read.ts';
import { viewerStatement } from './viewer/statement.ts';

/**
 * The customer client area (docs/client-area.md "Client area"): sign-in by one-time code (sign-in/), and what the signed-in client
 * (`ctx.customer`, resolved once in src/auth/customer.ts) reads and does (viewer/). The top module floor: it calls
 * the clients, payments, claims and SMS services and repeats none of their rules.
 */
export const clientAreaService = {
  requestOtp,
  /** The `client-area.otp` job: the code a request asked for, to a client's handset. */
  sendCode,
  verifyOtp,
  register: registerClient,
  details: viewerDetails,
  updateContact: updateViewerContact,
  policies: viewerPolicies,
  statement: viewerStatement,
  claims: viewerClaims,
  registerClaim: viewerRegisterClaim,
  pay: viewerPay,
  loans: viewerLoans,
};
