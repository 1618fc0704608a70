import type { SchemaObject } from 'openapi3-ts/oas31';
import { arr, date, int, money, nullable, obj, ref, str, timestamp } from '../schemas.ts';
import { moneyPair } from './money.ts';
import { cancellationToRest } from './cancellation.ts';
import { certificateToRest } from './certificate.ts';
import { endorsementToRest } from './endorsement.ts';

/** DateTime or Date → Y-m-d (the legacy date shape). */
const ymd = (v: string | null | undefined) => (v ? String(v).slice(0, 10) : null);

/** GraphQL Policy → the spec's policy record (money as whole shillings plus `_minor`, dates Y-m-d). */
export function policyToRest(p: any) {
  return {
    id: p.databaseId,
    uuid: p.uuid,
    policy_no: p.policyNo,
    risknote: p.riskNote,
    status: p.status,
    product_line: p.productLine,
    class: p.vehicleClass,
    scope: p.coverType,
    cover_period: p.coverPeriod,
    start_date: ymd(p.startDate),
    end_date: ymd(p.endDate),
    payment_mode: p.paymentMode,
    instalments: p.instalments,
    client: { client_no: p.client.clientNo, name: p.client.name, phone: p.client.phone },
    insurer: { id: p.insurer.databaseId, name: p.insurer.name },
    sales_person: p.salesPerson
      ? { id: p.salesPerson.databaseId, name: p.salesPerson.name, role: p.salesPerson.role, code: p.salesPerson.code }
      : null,
    premium: {
      ...moneyPair('basic_premium', p.basicPremium),
      ...moneyPair('taxes', p.taxes),
      ...moneyPair('total', p.total),
      levies: p.levies.map((l: any) => ({ code: l.code, name: l.name, ...moneyPair('amount', l.amount) })),
    },
    vehicles: p.vehicles.map((v: any) => ({
      regno: v.regNo,
      chassis_no: v.chassisNo,
      engine_no: v.engineNo,
      make: v.make,
      model: v.model,
      yom: v.yearOfManufacture,
      ...moneyPair('value', v.value),
      body_type: v.bodyType,
      coverage: v.coverage,
    })),
    debit_notes: p.debitNotes.map((d: any) => ({
      number: d.number,
      kind: d.kind,
      instalment_no: d.instalmentNo,
      due_on: ymd(d.dueOn),
      ...moneyPair('amount', d.amount),
      ...moneyPair('paid', d.paid),
      ...moneyPair('credited', d.credited),
      ...moneyPair('outstanding', d.outstanding),
    })),
    credit_notes: p.creditNotes.map((c: any) => ({
      number: c.number,
      kind: c.kind,
      ...moneyPair('amount', c.amount),
      ...moneyPair('basic_premium', c.basicPremium),
      ...moneyPair('taxes', c.taxes),
      ...moneyPair('applied', c.applied),
      ...moneyPair('refunded', c.refunded),
      applications: c.applications.map((a: any) => ({
        debit_note_no: a.debitNoteNo,
        ...moneyPair('amount', a.amount),
      })),
      created_at: c.createdAt,
    })),
    receipts: p.receipts.map((r: any) => ({
      receipt_no: r.receiptNo,
      transaction_ref: r.transactionRef,
      method: r.method,
      paid_at: r.paidAt,
      ...moneyPair('amount', r.amount),
      ...moneyPair('unallocated', r.unallocated),
      allocations: r.allocations.map((a: any) => ({ debit_note_no: a.debitNoteNo, ...moneyPair('amount', a.amount) })),
    })),
    endorsements: p.endorsements.map(endorsementToRest),
    cancellations: p.cancellations.map(cancellationToRest),
    certificates: p.certificates.map(certificateToRest),
    status_history: p.statusHistory.map((h: any) => ({
      from: h.fromStatus,
      to: h.toStatus,
      source: h.source,
      reason: h.reason,
      at: h.at,
    })),
    renewal_of: p.renewalOf ? { uuid: p.renewalOf.uuid, policy_no: p.renewalOf.policyNo } : null,
    renewed_by: p.renewal ? { uuid: p.renewal.uuid, policy_no: p.renewal.policyNo, status: p.renewal.status } : null,
    created_at: p.createdAt,
  };
}

const amountOnly = (extra: Record<string, SchemaObject> = {}) => ({ ...extra, ...money('amount') });

export const policySchemas = {
  PolicyRecord: obj({
    id: int(),
    uuid: str(),
    policy_no: str('MTR-YYYY-000001'),
    risknote: str(),
    status: {
      type: 'string',
      enum: ['pending_payment', 'active', 'cancelled', 'expired', 'lapsed', 'renewed', 'not_taken_up'],
    },
    product_line: str(),
    class: str(),
    scope: str(),
    cover_period: str('annual or tor'),
    start_date: date(),
    end_date: date(),
    payment_mode: { type: 'string', enum: ['full', 'ipf'] },
    instalments: int(),
    client: obj({ client_no: str(), name: str(), phone: str() }),
    insurer: obj({ id: int(), name: str() }),
    sales_person: nullable(obj({ id: int(), name: str(), role: str(), code: nullable(str()) })),
    premium: obj({
      ...money('basic_premium'),
      ...money('taxes'),
      ...money('total'),
      levies: arr(obj(amountOnly({ code: str(), name: str() }))),
    }),
    vehicles: arr(
      obj({
        regno: str('Normalised: no spaces, upper case'),
        chassis_no: nullable(str()),
        engine_no: nullable(str()),
        make: nullable(str()),
        model: nullable(str()),
        yom: int(),
        ...money('value', true),
        body_type: nullable(str()),
        coverage: nullable(str()),
      }),
    ),
    debit_notes: arr(
      obj({
        number: str(
          'DN-<policy>-<n>/<total> (instalment), DN-<policy>-E<n> (endorsement), DN-<policy>-R<n> (reinstatement)',
        ),
        kind: { type: 'string', enum: ['instalment', 'endorsement', 'reinstatement'] },
        instalment_no: int('0 for endorsement and reinstatement notes'),
        due_on: date(),
        ...money('amount'),
        ...money('paid'),
        ...money('credited'),
        ...money('outstanding'),
      }),
    ),
    credit_notes: arr(
      obj({
        number: str('CN-<policy>-<n>'),
        kind: { type: 'string', enum: ['endorsement', 'cancellation'] },
        ...money('amount'),
        ...money('basic_premium'),
        ...money('taxes'),
        ...money('applied'),
        ...money('refunded'),
        applications: arr(obj(amountOnly({ debit_note_no: str() }))),
        created_at: timestamp(),
      }),
    ),
    receipts: arr(
      obj({
        receipt_no: str(),
        transaction_ref: str(),
        method: str(),
        paid_at: timestamp(),
        ...money('amount'),
        ...money('unallocated'),
        allocations: arr(obj(amountOnly({ debit_note_no: str() }))),
      }),
    ),
    endorsements: arr(ref('Endorsement')),
    cancellations: arr(ref('Cancellation')),
    certificates: arr(ref('Certificate')),
    status_history: {
      ...arr(
        obj({
          from: nullable(str()),
          to: str(),
          source: str('bind, payment, schedule, api, renewal or reinstatement'),
          reason: nullable(str()),
          at: timestamp(),
        }),
      ),
      description: 'Every status the policy has had, oldest first',
    },
    renewal_of: nullable(obj({ uuid: str(), policy_no: str() })),
    renewed_by: nullable(obj({ uuid: str(), policy_no: str(), status: str() })),
    created_at: timestamp(),
  }),
};
