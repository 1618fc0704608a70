import { requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { Prisma } from '../../../generated/prisma/client.ts';
import { counterDraw, pendingNumber, sequenceSql } from '../../../db/counters.ts';
import { DuplicateClientError } from '../../../lib/problem.ts';
import { parseInput } from '../../../lib/validate.ts';
import { recordAudit, recordAuditWith, snakeKeys } from '../../audit/audit.service.ts';
import { describeMatches, findIdentityMatches, lockIdentifiers } from './identity.ts';
import { createSchema, toDate } from './input.ts';
import { assertRefs } from './references.ts';

/**
 * Creates a client inside `tx` (shared with quote and policy saves, which create clients too). With `numberLater`
 * (a bind, issue 28) the row is written with a stand-in number and the result carries `complete`, which the caller
 * runs just before its transaction ends: it draws the client number, writes it and records the audit entry, in one
 * statement.
 */
export async function createClientInTx(
  ctx: Context,
  tx: Tx,
  input: unknown,
  opts: { onboardedVia?: string; identifiersLocked?: boolean; numberLater?: boolean } = {},
) {
  const p = ctx.principal!;
  const actor = requireAbility(p, 'clients.write');
  const d = parseInput(createSchema, input);
  await assertRefs(tx, d);
  // A caller that matched the identity first (client-matching.ts) holds these locks already.
  if (!opts.identifiersLocked) await lockIdentifiers(tx, p.tenant.id, [d.phone, d.idNo, d.kraPin]);
  if (!d.force) {
    const matches = await findIdentityMatches(tx, d);
    if (matches.length) throw new DuplicateClientError(describeMatches(p, matches));
  }
  const clientNo = opts.numberLater ? pendingNumber() : await nextClientNumber(tx, p.tenant.id);
  const created = await tx.client.create({
    data: {
      tenantId: p.tenant.id,
      clientNo,
      type: d.type ?? 'individual',
      name: d.name,
      phone: d.phone,
      email: d.email ?? null,
      idNo: d.idNo,
      kraPin: d.kraPin,
      dateOfBirth: toDate(d.dateOfBirth) ?? null,
      physicalAddress: d.physicalAddress,
      branchId: d.branchId ?? actor.branchId,
      riskManagerId: d.riskManagerId ?? (actor.role === 'account_exec' ? actor.userId : null),
      salesPersonId: d.salesPersonId ?? (actor.role === 'agent' ? actor.userId : null),
      businessSourceId: d.businessSourceId ?? null,
      prospectTypeId: d.prospectTypeId ?? null,
      sector: d.sector,
      altName: d.altName,
      altPhone: d.altPhone,
      altEmail: d.altEmail ?? null,
      onboardedVia: opts.onboardedVia ?? 'api',
      createdByUserId: actor.userId,
      createdByApiClientId: p.apiClient.id,
    },
  });
  const { force, ...recorded } = d;
  const entry = {
    action: 'client.created',
    entityType: 'client',
    changes: { ...snakeKeys(recorded), ...(force ? { forced_despite_matches: true } : {}) },
  };
  if (!opts.numberLater) {
    await recordAudit(ctx, tx, p.tenant.id, { ...entry, entityId: clientNo });
    return { ...created, complete: undefined };
  }
  // The number drawn, written over the stand-in and named by the audit entry, in one statement.
  const complete = async (): Promise<string> => {
    const row = await recordAuditWith<{ client_no: string }>(
      ctx,
      tx,
      p.tenant.id,
      { ...entry, entityId: Prisma.sql`(SELECT client_no FROM c)` },
      {
        before: [
          Prisma.sql`n AS (${counterDraw(p.tenant.id, 'client_no')})`,
          Prisma.sql`c AS (UPDATE clients SET client_no = ${CLIENT_NO} FROM n WHERE clients.id = ${created.id}
            RETURNING clients.client_no)`,
        ],
        answer: Prisma.sql`(SELECT client_no FROM c) AS client_no`,
      },
    );
    // Never without a number: the stand-in is this transaction's own row.
    if (!row?.client_no) throw new Error(`client ${created.id}: its number was not drawn (stand-in not found)`);
    return row.client_no;
  };
  return { ...created, complete };
}

/** A client number as drawn: `C-` and the counter's value, at least six digits. */
const CLIENT_NO = Prisma.sql`'C-' || ${sequenceSql('n.value')}`;

/** The next client number, drawn now (the counter row stays locked until the transaction ends). */
async function nextClientNumber(tx: Tx, tenantId: number): Promise<string> {
  const [row] = await tx.$queryRaw<{ client_no: string }[]>`
    WITH n AS (${counterDraw(tenantId, 'client_no')}) SELECT ${CLIENT_NO} AS client_no FROM n`;
  return row.client_no;
}

export function createClient(ctx: Context, input: unknown) {
  return ctx.tx((tx) => createClientInTx(ctx, tx, input));
}
