import type { Tx } from '../../../db/client.ts';
import { sha256Hex } from '../../../lib/crypto.ts';
import { fromDbDate } from '../../../lib/dates.ts';
import { ipfSchedule, type ScheduleLine } from '../../reference/ipf-terms.ts';
import type { ApplicationRow } from './common.ts';
import { maskIdNumber, maskKraPin, maskPhone } from './mask.ts';
import { phoneForCodes } from '../../clients/client.service.ts';

/**
 * The loan agreement (docs/premium-finance.md "Premium finance: the agreement"): plain text, rendered deterministically from the
 * application, its policy, client, lender and organisation for the day it is signed, so the same facts on the same
 * day always give the same bytes and the same SHA-256. The signing code is bound to that hash: if anything in it
 * changes between the code and the signature (a name, the phone, the day), signing refuses and a new code is needed.
 */

export interface AgreementFacts {
  applicationNo: string;
  signedOn: string;
  organisation: string;
  lender: { name: string; defaultGraceDays: number };
  client: { name: string; clientNo: string; phone: string };
  kyc: { idNumber: string; kraPin: string; incomeBand: string; consentAt: Date };
  policy: { policyNo: string; insurer: string; startDate: string; endDate: string; vehicles: string[] };
  tenorMonths: number;
  premiumMinor: bigint;
  chargeMinor: bigint;
  totalRepayableMinor: bigint;
  aprBps: number;
  paymentsMinor: bigint[];
}

export interface Agreement {
  text: string;
  sha256: string;
  schedule: ScheduleLine[];
}

/** KES 61,234.50: whole shillings grouped by thousands, and the cents (no locale data involved). */
export function kes(minor: bigint): string {
  const sign = minor < 0n ? '-' : '';
  const abs = minor < 0n ? -minor : minor;
  const whole = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}KES ${whole}.${(abs % 100n).toString().padStart(2, '0')}`;
}

const pct = (bps: number) => `${(bps / 100).toFixed(2)} %`;

/** The agreement's text: numbered sections, one fact per line, the schedule as a table. */
export function renderAgreement(f: AgreementFacts): Agreement {
  const schedule = ipfSchedule({ paymentsMinor: f.paymentsMinor }, f.signedOn);
  const lines = [
    'PREMIUM FINANCE AGREEMENT',
    `Agreement no.: ${f.applicationNo}`,
    `Date: ${f.signedOn}`,
    '',
    '1. Parties',
    `Borrower: ${f.client.name} (client ${f.client.clientNo})`,
    `ID number: ${maskIdNumber(f.kyc.idNumber)}; KRA PIN: ${maskKraPin(f.kyc.kraPin)}`,
    `Registered phone: ${maskPhone(f.client.phone)}`,
    `Lender: ${f.lender.name}`,
    `Arranged by: ${f.organisation} (insurance intermediary)`,
    '',
    '2. Insurance financed',
    `Policy: ${f.policy.policyNo}, insured by ${f.policy.insurer}`,
    `Cover: ${f.policy.startDate} to ${f.policy.endDate}`,
    ...(f.policy.vehicles.length ? [`Vehicles: ${f.policy.vehicles.join(', ')}`] : []),
    `Premium financed (paid by the lender to the insurer): ${kes(f.premiumMinor)}`,
    '',
    '3. Cost of credit',
    `Charge (cost of credit): ${kes(f.chargeMinor)}`,
    `Annual percentage rate (flat rate annualised): ${pct(f.aprBps)}`,
    `Total repayable: ${kes(f.totalRepayableMinor)} in ${f.tenorMonths} monthly payments`,
    '',
    '4. Repayment schedule',
    ...schedule.map(
      (l) => `${String(l.seq).padStart(2, ' ')}. ${l.dueOn}  ${kes(l.amountMinor)}${l.seq === 1 ? '  (deposit)' : ''}`,
    ),
    `Total: ${kes(schedule.reduce((s, l) => s + l.amountMinor, 0n))}`,
    '',
    '5. Terms',
    '- The deposit is due on the day of signing. Once it is paid the lender pays the insurer the whole premium.',
    "- Payments are made to the intermediary's paybill with this agreement's loan number as the account.",
    `- A payment unpaid ${f.lender.defaultGraceDays} days after its due date puts the loan in default: the policy is ` +
      'cancelled for non-payment and its unearned premium is refunded to the lender.',
    '- The loan may be settled early at any time: the charge is earned evenly per payment, and the charge of each ' +
      'payment not yet due is waived.',
    '',
    '6. Consent',
    `I, ${f.client.name}, declare a monthly income in the band ${f.kyc.incomeBand}, confirm that the identity and tax ` +
      `details above are mine and true, consent to ${f.lender.name} and ${f.organisation} using them to decide and ` +
      `administer this loan, and agree to repay ${kes(f.totalRepayableMinor)} on the schedule above.`,
    `Consent recorded: ${f.kyc.consentAt.toISOString()}`,
    'Signed by the one-time code sent by SMS to the registered phone above.',
  ];
  const text = `${lines.join('\n')}\n`;
  return { text, sha256: sha256Hex(text), schedule };
}

/** The facts of application `a` as of `signedOn`, read in `tx`. */
export async function agreementFacts(tx: Tx, a: ApplicationRow, signedOn: string): Promise<AgreementFacts> {
  const policy = await tx.policy.findUniqueOrThrow({
    where: { id: a.policyId },
    include: { insurer: { select: { name: true } }, vehicles: { where: { status: 'active' }, orderBy: { id: 'asc' } } },
  });
  const client = await tx.client.findUniqueOrThrow({ where: { id: a.clientId } });
  const lender = await tx.ipfLender.findUniqueOrThrow({ where: { id: a.lenderId } });
  const tenant = await tx.tenant.findUniqueOrThrow({ where: { id: a.tenantId }, select: { name: true } });
  return {
    applicationNo: a.applicationNo,
    signedOn,
    organisation: tenant.name,
    lender: { name: lender.name, defaultGraceDays: lender.defaultGraceDays },
    // The phone the signing code goes to: while the organisation's change of it is held, the one trusted before.
    client: { name: client.name, clientNo: client.clientNo, phone: phoneForCodes(client) ?? client.phone },
    kyc: { idNumber: a.idNumber, kraPin: a.kraPin, incomeBand: a.incomeBand, consentAt: a.consentAt },
    policy: {
      policyNo: policy.policyNo,
      insurer: policy.insurer.name,
      startDate: fromDbDate(policy.startDate),
      endDate: fromDbDate(policy.endDate),
      vehicles: policy.vehicles.map((v) => v.regNo),
    },
    tenorMonths: a.tenorMonths,
    premiumMinor: a.premiumMinor,
    chargeMinor: a.chargeMinor,
    totalRepayableMinor: a.totalRepayableMinor,
    aprBps: a.aprBps,
    paymentsMinor: (a.schedule as { amount_minor: string }[]).map((l) => BigInt(l.amount_minor)),
  };
}

/** The agreement of application `a` if it were signed on `signedOn`. */
export async function agreementFor(tx: Tx, a: ApplicationRow, signedOn: string): Promise<Agreement> {
  return renderAgreement(await agreementFacts(tx, a, signedOn));
}
