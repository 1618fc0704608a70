import type {
  ConvertProspectInput,
  CreateProspectInput,
  ProspectFieldsFragment,
  ProspectRecordFragment,
} from '../generated/operations.ts';
import type { z } from 'zod';
import type { SentInput } from '../route.ts';
import type { ProspectConvertInput, ProspectPatch } from '../schemas/prospect.ts';
import { person } from './client.ts';
import { minor, whole } from './money.ts';

/** GraphQL Prospect → the Prospect resource as lists show it (no timeline). */
export function prospectToRest(p: ProspectFieldsFragment) {
  return {
    id: p.databaseId,
    uuid: p.uuid,
    prospect_no: p.prospectNo,
    type: p.type,
    name: p.name,
    phone: p.phone,
    email: p.email,
    id_no: p.idNo,
    kra_pin: p.kraPin,
    source: p.source,
    interests: p.interests,
    estimated_premium: whole(p.estimatedPremium),
    estimated_premium_minor: minor(p.estimatedPremium),
    status: p.prospectStatus,
    lost_reason: p.lostReason,
    assignee: person(p.assignee),
    created_by: person(p.createdBy),
    next_follow_up_on: p.nextFollowUpOn,
    client_no: p.clientNo,
    status_changed_at: p.statusChangedAt,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  };
}

/** GraphQL Prospect with its timeline → the record one prospect's paths answer with. */
export function prospectRecordToRest(p: ProspectRecordFragment) {
  return {
    ...prospectToRest(p),
    timeline: p.timeline.map((e) => ({
      id: e.databaseId,
      kind: e.kind,
      body: e.body,
      from_status: e.fromStatus,
      to_status: e.toStatus,
      actor_id: e.actorId,
      at: e.at,
    })),
  };
}

/**
 * REST prospect body → GraphQL input fields (create and update). `id_no`/`kra_pin` or the clients' legacy
 * `idno`/`pin`. A JSON null stays null: on PATCH it clears the clearable fields (docs/motor-and-clients.md "Prospects").
 */
export function prospectFromRest(b: z.output<typeof ProspectPatch>): SentInput<CreateProspectInput> {
  return {
    type: b.type,
    name: b.name,
    phone: b.phone,
    email: b.email,
    idNo: either(b, 'id_no', 'idno'),
    kraPin: either(b, 'kra_pin', 'pin'),
    source: b.source,
    interests: b.interests,
    estimatedPremium: b.estimated_premium,
    assigneeId: b.assignee_id,
    nextFollowUpOn: b.next_follow_up_on,
    note: b.note,
    force: b.force,
  };
}

/** REST conversion body → ConvertProspectInput (without the uuid, which is the path's). */
export function convertFromRest(
  b: z.output<typeof ProspectConvertInput>,
): Omit<SentInput<ConvertProspectInput>, 'uuid'> {
  return {
    clientNo: b.client_no,
    force: b.force,
    phone: b.phone,
    email: b.email,
    idNo: either(b, 'id_no', 'idno'),
    kraPin: either(b, 'kra_pin', 'pin'),
    dateOfBirth: b.date_of_birth,
    physicalAddress: b.physical_address,
    branchId: b.branch_id,
    riskManagerId: b.risk_manager_id,
    salesPersonId: b.sales_person_id,
  };
}

/** The current spelling when sent (a null included: it clears), else the legacy one. */
const either = <B extends object>(b: B, name: keyof B, legacy: keyof B): unknown =>
  b[name] !== undefined ? b[name] : b[legacy];
