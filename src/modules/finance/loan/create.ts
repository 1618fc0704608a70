import { randomUUID } from 'node:crypto';
import type { Tx } from '../../../db/client.ts';
import { toDbDate } from '../../../lib/dates.ts';
import { ipfSchedule } from '../../reference/ipf-terms.ts';
import { numberIpf } from '../numbers.ts';

type ApplicationRow = NonNullable<Awaited<ReturnType<Tx['ipfApplication']['findUnique']>>>;

/**
 * The loan a signed application becomes, with its schedule: the application's priced payments (the deposit first)
 * due from `signedOn` monthly (reference/ipf-terms.ts ipfSchedule). The caller has moved the application to
 * `signed` in the same transaction. The loan waits for its deposit (`awaiting_deposit`).
 */
export async function createLoanFromApplication(tx: Tx, a: ApplicationRow, signedOn: string, signedAt: Date) {
  const payments = (a.schedule as { amount_minor: string }[]).map((l) => BigInt(l.amount_minor));
  const lines = ipfSchedule({ paymentsMinor: payments }, signedOn);
  const loanNo = await numberIpf(tx, a.tenantId, 'loan', signedAt);
  return tx.ipfLoan.create({
    data: {
      tenantId: a.tenantId,
      uuid: randomUUID(),
      loanNo,
      applicationId: a.id,
      policyId: a.policyId,
      clientId: a.clientId,
      lenderId: a.lenderId,
      tenorMonths: a.tenorMonths,
      principalMinor: a.premiumMinor,
      chargeMinor: a.chargeMinor,
      totalRepayableMinor: a.totalRepayableMinor,
      aprBps: a.aprBps,
      signedAt,
      instalments: {
        create: lines.map((l) => ({
          tenantId: a.tenantId,
          seq: l.seq,
          dueOn: toDbDate(l.dueOn),
          amountMinor: l.amountMinor,
        })),
      },
    },
    include: { instalments: { orderBy: { seq: 'asc' } } },
  });
}
