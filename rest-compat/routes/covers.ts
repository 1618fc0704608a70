import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import {
  BindMedicalPolicyDocument,
  BindStandardPolicyDocument,
  BindTravelPolicyDocument,
  type BoundPolicyFieldsFragment,
  type CoverQuoteFieldsFragment,
  MedicalQuoteDocument,
  SaveMedicalQuoteDocument,
  type SavedQuoteFieldsFragment,
  SaveStandardQuoteDocument,
  SaveTravelQuoteDocument,
  StandardQuoteDocument,
  TravelQuoteDocument,
} from '../generated/operations.ts';
import {
  bindCoverFromRest,
  coverQuoteToRest,
  medicalFromRest,
  saveCoverQuoteFromRest,
  standardFromRest,
  tripFromRest,
} from '../mappers/cover.ts';
import { boundPolicyToRest, redactBindReplay, savedQuoteToRest } from '../mappers/motor.ts';
import { serverFiguresToRest } from '../mappers/priced.ts';
import { BIND_ERRORS } from './motor.ts';
import type { z } from 'zod';
import { type AnyRoute, bodyOf, type Resolved, type RestRoute, route } from '../route.ts';
import { ref } from '../schemas/builders.ts';
import {
  BindMedicalRequest,
  BindStandardRequest,
  BindTravelRequest,
  MedicalQuoteRequest,
  SaveMedicalQuoteRequest,
  SaveStandardQuoteRequest,
  SaveTravelQuoteRequest,
  StandardQuoteRequest,
  TravelQuoteRequest,
} from '../schemas/covers.ts';

const CLIENT_FIELDS = { 'client.id_no': 'client.idno', 'client.kra_pin': 'client.pin' };
const BIND_RULES =
  'Also counts against the bind limit (3 saves per 15 seconds per API client). Business rules answered with 422 domain_rule: ' +
  "cover starting more than 90 days ahead; the insurer's refusal of this risk (its reason given); more instalments than the " +
  'insurer allows; premium finance on a cover the insurer or the lenders do not finance.';

/** One operation of a line: its document, its variables from the request, and its result picked from the data. */
interface Op<R, V, T> {
  operation: TypedDocumentNode<R, V>;
  toVariables: RestRoute<R, V, unknown>['toVariables'];
  pick(d: Resolved<R>): T;
}

interface Line<Q, QV, S, SV, B, BV> {
  line: 'medical' | 'travel' | 'standard';
  tag: string;
  /** "medical cover (family or group)" */
  what: string;
  /** Prefix of the request schemas: Medical, Travel, Standard. */
  schema: string;
  /** The bodies' definitions: the facade parses each body by its own (`parseBody`) before `toVariables`. */
  bodies: { quote: z.ZodType; save: z.ZodType; bind: z.ZodType };
  quote: Op<Q, QV, CoverQuoteFieldsFragment>;
  save: Op<S, SV, SavedQuoteFieldsFragment>;
  bind: Op<B, BV, BoundPolicyFieldsFragment>;
}

/** The three paths of a line — quote, save quote, bind — with motor's conventions (docs/covers.md "Medical, travel and standard covers"). */
function lineRoutes<Q, QV, S, SV, B, BV>(l: Line<Q, QV, S, SV, B, BV>): AnyRoute[] {
  const name = `${l.line[0].toUpperCase()}${l.line.slice(1)}`;
  return [
    route({
      operationId: `${l.line}Quote`,
      method: 'POST',
      path: `/${l.line}/quote`,
      summary: `Price ${l.what} with every insurer that rates it (nothing is stored)`,
      tag: l.tag,
      scopes: ['quote'],
      idempotent: false,
      operation: l.quote.operation,
      requestBody: l.bodies.quote,
      parseBody: true,
      toVariables: l.quote.toVariables,
      toResponse: (d) => ({ status: 200, body: coverQuoteToRest(l.quote.pick(d)) }),
      response: { status: 200, description: 'Options, cheapest first', schema: ref('CoverQuoteResponse') },
      errors: ['validation_failed', 'no_quote'],
    }),
    route({
      operationId: `save${name}Quote`,
      method: 'POST',
      path: `/${l.line}/save_quote`,
      summary: `Match or create the client and store the quote of ${l.what} with every insurer's option (valid 14 days)`,
      tag: l.tag,
      scopes: ['quote', 'bind'],
      idempotent: true,
      operation: l.save.operation,
      requestBody: l.bodies.save,
      parseBody: true,
      toVariables: l.save.toVariables,
      toResponse: (d) => ({ status: 201, body: savedQuoteToRest(l.save.pick(d)) }),
      mapProblemExtra: serverFiguresToRest,
      fieldNames: CLIENT_FIELDS,
      response: { status: 201, description: 'Saved quote', schema: ref('SavedQuote') },
      errors: ['duplicate_client', 'validation_failed', 'premium_mismatch', 'no_quote', 'actor_forbidden'],
    }),
    route({
      operationId: `save${name}Policy`,
      method: 'POST',
      path: `/${l.line}/save`,
      summary: `Bind ${l.what}: re-price, match or create the client, raise the policy pending payment`,
      description: BIND_RULES,
      tag: l.tag,
      scopes: ['bind'],
      idempotent: true,
      operation: l.bind.operation,
      requestBody: l.bodies.bind,
      parseBody: true,
      toVariables: l.bind.toVariables,
      toResponse: (d, input) => ({ status: 201, body: boundPolicyToRest(l.bind.pick(d), input.url) }),
      redactForReplay: redactBindReplay,
      mapProblemExtra: serverFiguresToRest,
      fieldNames: CLIENT_FIELDS,
      response: { status: 201, description: 'Saved policy', schema: ref('SavedPolicy') },
      errors: [...BIND_ERRORS],
    }),
  ];
}

export const coverRoutes: AnyRoute[] = [
  ...lineRoutes({
    line: 'medical',
    tag: 'Medical',
    what: 'medical cover (family or group)',
    schema: 'Medical',
    bodies: { quote: MedicalQuoteRequest, save: SaveMedicalQuoteRequest, bind: BindMedicalRequest },
    quote: {
      operation: MedicalQuoteDocument,
      toVariables: (input) => ({ input: medicalFromRest(bodyOf(input, MedicalQuoteRequest)) }),
      pick: (d) => d.medicalQuote,
    },
    save: {
      operation: SaveMedicalQuoteDocument,
      toVariables: (input) =>
        saveCoverQuoteFromRest(bodyOf(input, SaveMedicalQuoteRequest), 'medical', medicalFromRest),
      pick: (d) => d.saveMedicalQuote,
    },
    bind: {
      operation: BindMedicalPolicyDocument,
      toVariables: (input) => bindCoverFromRest(bodyOf(input, BindMedicalRequest), 'medical', medicalFromRest),
      pick: (d) => d.bindMedicalPolicy,
    },
  }),
  ...lineRoutes({
    line: 'travel',
    tag: 'Travel',
    what: 'a single trip',
    schema: 'Travel',
    bodies: { quote: TravelQuoteRequest, save: SaveTravelQuoteRequest, bind: BindTravelRequest },
    quote: {
      operation: TravelQuoteDocument,
      toVariables: (input) => ({ input: tripFromRest(bodyOf(input, TravelQuoteRequest)) }),
      pick: (d) => d.travelQuote,
    },
    save: {
      operation: SaveTravelQuoteDocument,
      toVariables: (input) => saveCoverQuoteFromRest(bodyOf(input, SaveTravelQuoteRequest), 'trip', tripFromRest),
      pick: (d) => d.saveTravelQuote,
    },
    bind: {
      operation: BindTravelPolicyDocument,
      toVariables: (input) => bindCoverFromRest(bodyOf(input, BindTravelRequest), 'trip', tripFromRest),
      pick: (d) => d.bindTravelPolicy,
    },
  }),
  ...lineRoutes({
    line: 'standard',
    tag: 'Standard products',
    what: "a standard product (personal accident, domestic package, WIBA, fire, golfer's)",
    schema: 'Standard',
    bodies: { quote: StandardQuoteRequest, save: SaveStandardQuoteRequest, bind: BindStandardRequest },
    quote: {
      operation: StandardQuoteDocument,
      toVariables: (input) => ({ input: standardFromRest(bodyOf(input, StandardQuoteRequest)) }),
      pick: (d) => d.standardQuote,
    },
    save: {
      operation: SaveStandardQuoteDocument,
      toVariables: (input) =>
        saveCoverQuoteFromRest(bodyOf(input, SaveStandardQuoteRequest), 'cover', standardFromRest),
      pick: (d) => d.saveStandardQuote,
    },
    bind: {
      operation: BindStandardPolicyDocument,
      toVariables: (input) => bindCoverFromRest(bodyOf(input, BindStandardRequest), 'cover', standardFromRest),
      pick: (d) => d.bindStandardPolicy,
    },
  }),
];
