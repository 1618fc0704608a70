import { createClient, createClientInTx } from './client/create.ts';
import { getClient, listClients } from './client/read.ts';
import { updateClient } from './client/update.ts';

/**
 * The client operations, one file each under ./client/ (read, create, update), with the identity rules they share
 * (client/identity.ts: one client per phone, ID number or PIN unless forced, and what a refusal may reveal).
 */

export { type ClientQuery, type ClientListFilters, clientListWhere } from './client/read.ts';
export { lockIdentifiers, type MatchCandidate, findIdentityMatches, describeMatches } from './client/identity.ts';
export { contactFields } from './client/input.ts';
export { PHONE_HOLD_HOURS, phoneForCodes, phoneHeld, requirePhoneForCodes } from './client/phone-hold.ts';

export const clientService = {
  list: listClients,
  get: getClient,
  /** Creates a client inside `tx` (shared with quote and policy saves, which create clients too). */
  createInTx: createClientInTx,
  create: createClient,
  update: updateClient,
};
