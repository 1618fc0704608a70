import {
  AddProspectNoteDocument,
  ConvertProspectDocument,
  CreateProspectDocument,
  ProspectDocument,
  ProspectFollowUpsDocument,
  ProspectsDocument,
  UpdateProspectDocument,
} from '../generated/operations.ts';
import { convertFromRest, prospectFromRest, prospectRecordToRest, prospectToRest } from '../mappers/prospect.ts';
import { connectionPage, pageArgs, pageParams, pageSchema } from '../pagination.ts';
import { type AnyRoute, bodyOf, boolParam, intParam, route } from '../route.ts';
import { bool, dataOf, int, queryParam, ref, str, oneOf } from '../schemas/builders.ts';
import {
  PROSPECT_VALUES,
  ProspectConvertInput,
  ProspectInput,
  ProspectNoteInput,
  ProspectPatch,
} from '../schemas/prospect.ts';
import { bodyObject } from '../schemas/inputs.ts';

const q = queryParam;
const listParams = [
  q('status', oneOf([...PROSPECT_VALUES.statuses])),
  q('assignee_id', int()),
  q('source', oneOf([...PROSPECT_VALUES.sources])),
  q('interest', oneOf([...PROSPECT_VALUES.interests])),
  q('follow_up_due', bool(), 'true: open prospects whose follow-up date is today (Nairobi) or past'),
  q('search', str(), 'Name, prospect number, phone, ID number or tax PIN'),
  ...pageParams(),
];

const common = { tag: 'Prospects', serviceOnly: true };
const record = (status: number, description: string) => ({
  status,
  description,
  schema: dataOf(ref('ProspectRecord')),
});

/** The CRM's prospects (docs/motor-and-clients.md "Prospects"): the list, the follow-up list, one record, and its writes. */
export const prospectsRoutes: AnyRoute[] = [
  route({
    ...common,
    operationId: 'listProspects',
    method: 'GET',
    path: '/prospects',
    summary: 'Prospects the caller may see, newest first (cursor pagination)',
    scopes: ['read', 'crm'],
    idempotent: false,
    operation: ProspectsDocument,
    queryParams: listParams,
    toVariables: ({ query }) => ({
      ...pageArgs(query),
      status: query.get('status') || undefined,
      assigneeId: intParam(query.get('assignee_id')),
      source: query.get('source') || undefined,
      interest: query.get('interest') || undefined,
      followUpDue: boolParam(query.get('follow_up_due')),
      search: query.get('search'),
    }),
    toResponse: (d, input) => connectionPage(d.prospects, input, prospectToRest),
    response: { status: 200, description: 'A page of prospects', schema: pageSchema(ref('Prospect')) },
    errors: ['validation_failed'],
  }),
  // Before /prospects/{uuid}: the first row that matches a path answers it.
  route({
    ...common,
    operationId: 'listProspectFollowUps',
    method: 'GET',
    path: '/prospects/follow-ups',
    summary: 'Open prospects due for a follow-up (today, Nairobi, or past), the oldest date first',
    scopes: ['read', 'crm'],
    idempotent: false,
    operation: ProspectFollowUpsDocument,
    queryParams: [q('assignee_id', int()), ...pageParams({ pages: false })],
    toVariables: ({ query }) => ({
      ...pageArgs(query, { pages: false }),
      assigneeId: intParam(query.get('assignee_id')),
    }),
    toResponse: (d, input) => connectionPage(d.prospectFollowUps, input, prospectToRest, { pages: false }),
    response: { status: 200, description: 'A page of prospects due', schema: pageSchema(ref('Prospect')) },
    errors: ['validation_failed'],
  }),
  route({
    ...common,
    operationId: 'createProspect',
    method: 'POST',
    path: '/prospects',
    summary: 'Add a prospect (numbered, normalised, duplicate-checked against clients and prospects, audited)',
    scopes: ['crm'],
    idempotent: true,
    operation: CreateProspectDocument,
    requestBody: bodyObject(ref('ProspectInput')),
    parseBody: true,
    toVariables: (input) => ({ input: prospectFromRest(bodyOf(input, ProspectInput)) }),
    toResponse: (d) => ({ status: 201, body: { data: prospectRecordToRest(d.createProspect) } }),
    response: record(201, 'Created'),
    errors: ['duplicate_client', 'validation_failed', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'getProspect',
    method: 'GET',
    path: '/prospects/{uuid}',
    summary: 'Read a prospect with its timeline',
    scopes: ['read', 'crm'],
    idempotent: false,
    operation: ProspectDocument,
    toVariables: ({ params }) => ({ uuid: params.uuid }),
    toResponse: (d) => ({ status: 200, body: { data: prospectRecordToRest(d.prospect) } }),
    response: record(200, 'The prospect'),
    errors: ['not_found'],
  }),
  route({
    ...common,
    operationId: 'updateProspect',
    method: 'PATCH',
    path: '/prospects/{uuid}',
    summary: 'Change a prospect: changed fields only, a status move, a note (audited)',
    scopes: ['crm'],
    idempotent: true,
    operation: UpdateProspectDocument,
    requestBody: bodyObject(ref('ProspectPatch')),
    parseBody: true,
    toVariables: (input) => {
      const b = bodyOf(input, ProspectPatch);
      return {
        input: { uuid: input.params.uuid, ...prospectFromRest(b), status: b.status, lostReason: b.lost_reason },
      };
    },
    toResponse: (d) => ({ status: 200, body: { data: prospectRecordToRest(d.updateProspect) } }),
    response: record(200, 'Updated'),
    errors: ['not_found', 'duplicate_client', 'invalid_state', 'validation_failed', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'addProspectNote',
    method: 'POST',
    path: '/prospects/{uuid}/notes',
    summary: "Add a note to the prospect's timeline",
    scopes: ['crm'],
    idempotent: true,
    operation: AddProspectNoteDocument,
    requestBody: bodyObject(ref('ProspectNoteInput')),
    parseBody: true,
    toVariables: (input) => ({ input: { uuid: input.params.uuid, body: bodyOf(input, ProspectNoteInput).body } }),
    toResponse: (d) => ({ status: 201, body: { data: prospectRecordToRest(d.addProspectNote) } }),
    response: record(201, 'The prospect with the note on its timeline'),
    errors: ['not_found', 'validation_failed', 'actor_forbidden'],
  }),
  route({
    ...common,
    operationId: 'convertProspect',
    method: 'POST',
    path: '/prospects/{uuid}/convert',
    summary: 'Make a client of the prospect, or link an existing one (client_no); the prospect keeps its history',
    scopes: ['crm'],
    idempotent: true,
    operation: ConvertProspectDocument,
    requestBody: bodyObject(ref('ProspectConvertInput')),
    parseBody: true,
    toVariables: (input) => ({
      input: { uuid: input.params.uuid, ...convertFromRest(bodyOf(input, ProspectConvertInput)) },
    }),
    toResponse: (d) => ({ status: 200, body: { data: prospectRecordToRest(d.convertProspect) } }),
    response: record(200, 'The prospect, with client_no'),
    errors: ['not_found', 'duplicate_client', 'invalid_state', 'validation_failed', 'actor_forbidden'],
  }),
];
