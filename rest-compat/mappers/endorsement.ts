import type {
  EndorsePolicyInput,
  EndorsementDetailsInput,
  EndorsementFieldsFragment,
  EndorsementMemberInput,
  EndorsementVehicleInput,
} from '../generated/operations.ts';
import type { z } from 'zod';
import type { SentInput } from '../route.ts';
import type { EndorsementRequest } from '../schemas/endorsement.ts';
import { minor, whole } from './money.ts';
import { setOwn } from './json-keys.ts';

/**
 * The legacy endorse body (its types checked by its definition) → EndorsePolicyInput. `regno` and `reg_no` are both
 * accepted; a missing operation is "" for the service to refuse (after it finds the policy).
 */
export function endorseFromRest(b: z.output<typeof EndorsementRequest>): SentInput<EndorsePolicyInput> {
  const d = b.details;
  const details: SentInput<EndorsementDetailsInput> | undefined =
    d != null
      ? {
          chassisNo: d.chassis_no,
          engineNo: d.engine_no,
          make: d.make,
          model: d.model,
          bodyType: d.body_type,
          limitsOfLiability: d.limits_of_liability ?? b.limits_of_liability,
        }
      : b.limits_of_liability != null
        ? { limitsOfLiability: b.limits_of_liability }
        : undefined;
  const v = b.vehicle;
  const m = b.member;
  return {
    operation: b.operation ?? '',
    effectiveDate: b.effective_date,
    regNo: b.regno ?? b.reg_no,
    vehicle:
      v == null
        ? v
        : ({
            regNo: v.regno ?? v.reg_no,
            chassisNo: v.chassis_no,
            engineNo: v.engine_no,
            make: v.make,
            model: v.model,
            yom: v.yom,
            value: v.value,
            bodyType: v.body_type,
            tonnage: v.tonnage,
            pll: v.pll,
            coverage: v.coverage,
          } satisfies SentInput<EndorsementVehicleInput>),
    value: b.value,
    details,
    member:
      m == null
        ? m
        : ({
            name: m.name,
            relationship: m.relationship,
            dateOfBirth: m.date_of_birth,
            age: m.age,
            inSchool: m.in_school,
            idNo: m.id_no,
          } satisfies SentInput<EndorsementMemberInput>),
    insuredId: b.insured_id,
    sumInsured: b.sum_insured,
    note: b.note,
  };
}

/** The caller's limits of liability: shown as given. */
const AS_GIVEN = new Set(['limits_of_liability', 'previous_limits_of_liability']);

/** The stored change as the record shows it: the internal `vehicle_id`s left out. */
function withoutVehicleIds(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutVehicleIds);
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    if (k === 'vehicle_id') continue;
    const x = (v as Record<string, unknown>)[k];
    setOwn(out, k, AS_GIVEN.has(k) ? x : withoutVehicleIds(x));
  }
  return out;
}

/** GraphQL Endorsement → the REST record. */
export function endorsementToRest(e: EndorsementFieldsFragment) {
  const pe = e.premiumEffect;
  return {
    uuid: e.uuid,
    number: e.number,
    operation: e.operation,
    // Aliased in the operations: a Problem's `status` (the HTTP status) shares the selection.
    status: e.endorsementStatus,
    effective_date: e.effectiveDate,
    policy: { uuid: e.policy.uuid, policy_no: e.policy.policyNo },
    // Money in the change comes as cents with its whole shillings from the core (`changesWithShillings`).
    changes: withoutVehicleIds(e.changesWithShillings),
    premium_effect: {
      basic_premium: whole(pe.basicPremium),
      basic_premium_minor: minor(pe.basicPremium),
      taxes: whole(pe.taxes),
      taxes_minor: minor(pe.taxes),
      total: whole(pe.total),
      total_minor: minor(pe.total),
      levies: pe.levies.map((l) => ({
        code: l.code,
        name: l.name,
        amount: whole(l.amount),
        amount_minor: minor(l.amount),
      })),
    },
    days: { in_period: e.days.inPeriod, remaining: e.days.remaining },
    items: e.items.map((i) => ({
      regno: i.regNo,
      insured: i.insured,
      annual_basic_before: whole(i.annualBasicBefore),
      annual_basic_before_minor: minor(i.annualBasicBefore),
      annual_basic_after: whole(i.annualBasicAfter),
      annual_basic_after_minor: minor(i.annualBasicAfter),
    })),
    note: e.debitNote
      ? {
          kind: 'debit' as const,
          number: e.debitNote.number,
          amount: whole(e.debitNote.amount),
          amount_minor: minor(e.debitNote.amount),
          due_on: e.debitNote.dueOn,
        }
      : e.creditNote
        ? {
            kind: 'credit' as const,
            number: e.creditNote.number,
            amount: whole(e.creditNote.amount),
            amount_minor: minor(e.creditNote.amount),
            applied: whole(e.creditNote.applied),
            applied_minor: minor(e.creditNote.applied),
            refunded: whole(e.creditNote.refunded),
            refunded_minor: minor(e.creditNote.refunded),
            applications: e.creditNote.applications.map((a) => ({
              debit_note_no: a.debitNoteNo,
              amount: whole(a.amount),
              amount_minor: minor(a.amount),
            })),
          }
        : null,
    remark: e.remark,
    based_on_revision: e.basedOnRevision,
    expires_at: e.expiresAt,
    created_at: e.createdAt,
    confirmed_at: e.confirmedAt,
    discarded_at: e.discardedAt,
  };
}
