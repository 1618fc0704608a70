import { BindMotorPolicyDocument, MotorQuoteDocument, SaveMotorQuoteDocument } from '../generated/operations.ts';
import {
  bindFromRest,
  boundPolicyToRest,
  optionToRest,
  quoteInputFromRest,
  redactBindReplay,
  riskToRest,
  savedQuoteToRest,
  saveQuoteFromRest,
} from '../mappers/motor.ts';
import { serverFiguresToRest } from '../mappers/priced.ts';
import { type AnyRoute, bodyOf, route } from '../route.ts';
import { ref } from '../schemas/builders.ts';
import { BindRequest, MotorQuoteRequest, motorQuoteResponse, SaveQuoteRequest } from '../schemas/motor.ts';

/** What a bind can answer with, beyond the common codes: motor's and every other line's. */
export const BIND_ERRORS = [
  'actor_forbidden',
  'ipf_not_offered',
  'duplicate_client',
  'price_changed',
  'validation_failed',
  'premium_mismatch',
  'no_quote',
  'domain_rule',
  'rate_limited',
] as const;

export const motorRoutes: AnyRoute[] = [
  route({
    operationId: 'motorQuote',
    method: 'POST',
    path: '/motor/quote',
    summary: 'Price motor cover with every insurer that rates it (nothing is stored)',
    tag: 'Motor',
    scopes: ['quote'],
    idempotent: false,
    operation: MotorQuoteDocument,
    requestBody: MotorQuoteRequest,
    parseBody: true,
    toVariables: (input) => ({ input: quoteInputFromRest(bodyOf(input, MotorQuoteRequest)) }),
    toResponse: (d) => ({
      status: 200,
      body: {
        message: d.motorQuote.message,
        quote: riskToRest(d.motorQuote.quote),
        options: d.motorQuote.options.map(optionToRest),
      },
    }),
    fieldNames: { insurer_ids: 'insurer_id' },
    response: {
      status: 200,
      description: 'Options, cheapest first',
      schema: motorQuoteResponse,
    },
    errors: ['validation_failed', 'no_quote'],
  }),
  route({
    operationId: 'saveMotorQuote',
    method: 'POST',
    path: '/motor/save_quote',
    summary: "Match or create the client and store the quote with every insurer's option (valid 14 days)",
    tag: 'Motor',
    scopes: ['quote', 'bind'],
    idempotent: true,
    operation: SaveMotorQuoteDocument,
    requestBody: SaveQuoteRequest,
    parseBody: true,
    toVariables: (input) => saveQuoteFromRest(bodyOf(input, SaveQuoteRequest)),
    toResponse: (d) => ({ status: 201, body: savedQuoteToRest(d.saveMotorQuote) }),
    mapProblemExtra: serverFiguresToRest,
    fieldNames: { 'client.id_no': 'client.idno', 'client.kra_pin': 'client.pin', 'vehicle.reg_no': 'vehicle.reg_no' },
    response: { status: 201, description: 'Saved quote', schema: ref('SavedQuote') },
    errors: ['duplicate_client', 'validation_failed', 'premium_mismatch', 'no_quote', 'actor_forbidden'],
  }),
  route({
    operationId: 'saveMotorPolicy',
    method: 'POST',
    path: '/motor/save',
    summary: 'Bind: re-price, match or create the client, raise the policy pending payment with 1–4 debit notes',
    description:
      'Also counts against the bind limit (3 saves per 15 seconds per API client). Business rules answered with 422 domain_rule: cover ' +
      "starting more than 90 days ahead; a vehicle older than the insurer's comprehensive age limit; more instalments than the insurer " +
      'allows; premium finance on a cover or premium the lenders do not finance; another pending or active policy on the same ' +
      'registration for overlapping dates.',
    tag: 'Motor',
    scopes: ['bind'],
    idempotent: true,
    operation: BindMotorPolicyDocument,
    requestBody: BindRequest,
    parseBody: true,
    toVariables: (input) => bindFromRest(bodyOf(input, BindRequest)),
    toResponse: (d, input) => ({ status: 201, body: boundPolicyToRest(d.bindMotorPolicy, input.url) }),
    redactForReplay: redactBindReplay,
    mapProblemExtra: serverFiguresToRest,
    fieldNames: {
      'client.id_no': 'client.idno',
      'client.kra_pin': 'client.pin',
      'vehicles.0.reg_no': 'vehicles.0.regno',
    },
    response: { status: 201, description: 'Saved policy', schema: ref('SavedPolicy') },
    errors: [...BIND_ERRORS],
  }),
];
