import type { Tx } from '../../../db/client.ts';
import { addDays, fromDbDate, toDbDate } from '../../../lib/dates.ts';
import { smsService } from '../../sms/sms.service.ts';
import { IPF_RULES } from '../ipf-state.ts';
import { lineOutstanding } from '../loan/balance.ts';
import { each, type IpfDailyRun, lockLoan, offeringTenant } from './run.ts';
import { promptShillings } from '../../../lib/money.ts';

/** The SMS template of a reminder (src/seed/sms-data.ts). */
export const REMINDER_TEMPLATE = 'ipf_reminder';

/**
 * Reminders: every instalment of an active loan after the deposit, due from asOf to IPF_RULES.reminderDaysBefore
 * days later and still owing, gets one SMS to the client (template ipf_reminder: amount owing, due date, paybill and
 * account) through the SMS service, which charges it and refuses it by its own rules (no balance, template, sender ID
 * or usable number: the reminder is not marked, and the next run tries again while the line is in the window).
 * `reminded_at` marks it in the message's transaction, so a rerun sends nothing twice.
 */
export async function sendReminders(run: IpfDailyRun): Promise<void> {
  const lines = await run.app.db.system((tx) =>
    tx.ipfInstalment.findMany({
      where: {
        seq: { gt: 1 },
        remindedAt: null,
        dueOn: { gte: run.asOfDb, lte: toDbDate(addDays(run.asOf, IPF_RULES.reminderDaysBefore)) },
        loan: { status: 'active', ...offeringTenant(run) },
      },
      orderBy: { id: 'asc' },
    }),
  );
  for (const line of lines.filter((l) => lineOutstanding(l) > 0n))
    await each(run, line, (tx) => remindOnce(run, tx, line.id), 'reminders', { refused: 'remindersSkipped' });
}

async function remindOnce(run: IpfDailyRun, tx: Tx, lineId: number): Promise<boolean> {
  const first = await tx.ipfInstalment.findUniqueOrThrow({ where: { id: lineId }, select: { loanId: true } });
  await lockLoan(tx, first.loanId);
  const line = await tx.ipfInstalment.findUniqueOrThrow({ where: { id: lineId } });
  const loan = await tx.ipfLoan.findUniqueOrThrow({
    where: { id: line.loanId },
    include: { client: { select: { id: true, name: true, phone: true } }, tenant: { select: { paybill: true } } },
  });
  const owing = lineOutstanding(line);
  if (loan.status !== 'active' || line.remindedAt || owing <= 0n) return false;
  await tx.ipfInstalment.update({ where: { id: line.id }, data: { remindedAt: new Date() } });
  await smsService.sendServiceMessage(run.app, tx, {
    tenantId: loan.tenantId,
    phone: loan.client.phone,
    templateCode: REMINDER_TEMPLATE,
    vars: {
      name: loan.client.name.split(' ')[0],
      loan_no: loan.loanNo,
      // Rounded up, so paying the amount asked clears the line (the odd cents carry forward to the next line).
      amount: Number(promptShillings(owing)).toLocaleString('en-KE'),
      due_on: fromDbDate(line.dueOn),
      paybill: loan.tenant.paybill,
    },
    purpose: REMINDER_TEMPLATE,
    clientId: loan.client.id,
  });
  return true;
}
