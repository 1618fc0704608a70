import { type Principal, requireAbility } from '../../../auth/principal.ts';
import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import type { Prospect } from '../../../generated/prisma/client.ts';
import { InvalidStateError, ValidationError } from '../../../lib/problem.ts';
import { parseInput } from '../../../lib/validate.ts';
import { clientVisibility } from '../../access/client.visibility.ts';
import { recordAudit } from '../../audit/audit.service.ts';
import { clientService } from '../../clients/client.service.ts';
import { clientRoleOf } from '../../clients/client/references.ts';
import { addTimeline } from '../prospect-state.ts';
import { type ConvertInput, convertSchema } from './input.ts';
import { findVisibleProspect, type ProspectQuery, reread } from './read.ts';

/**
 * A prospect becomes a client: a new one made from its details through the clients' own create (numbered,
 * duplicate-checked against clients, onboarded_via `prospect`), or an existing client the caller may see
 * (`clientNo`). The prospect stays, linked to the client, with its whole timeline; converting twice is 409.
 */
export async function convertProspect(ctx: Context, uuid: string, input: unknown, query: ProspectQuery = {}) {
  const p = ctx.principal!;
  const actor = requireAbility(p, 'prospects.write');
  const d = parseInput(convertSchema, input);
  return ctx.tx(async (tx) => {
    const prospect = await findVisibleProspect(tx, p, uuid);
    if (prospect.clientId) throw new InvalidStateError('The prospect is already a client', { status: prospect.status });
    if (prospect.status === 'lost')
      throw new InvalidStateError('A lost prospect is not converted; revive it first (status contacted)', {
        status: prospect.status,
      });
    const client = d.clientNo
      ? { ...(await visibleClient(tx, p, d.clientNo)), created: false }
      : { ...(await newClient(ctx, tx, prospect, d)), created: true };
    // Guarded: of two conversions at once, the second finds the link made and rolls its own client back.
    const linked = await tx.prospect.updateMany({
      where: { id: prospect.id, clientId: null },
      data: { clientId: client.id },
    });
    if (linked.count !== 1)
      throw new InvalidStateError('The prospect is already a client', { status: prospect.status });
    await addTimeline(tx, {
      tenantId: prospect.tenantId,
      prospectId: prospect.id,
      kind: 'converted',
      // No number in the words: the timeline's reader may not see the client (client_no reads null for them).
      body: client.created ? 'Converted to a new client' : 'Linked to an existing client',
      actorUserId: actor.userId,
    });
    await recordAudit(ctx, tx, p.tenant.id, {
      action: 'prospect.converted',
      entityType: 'prospect',
      entityId: prospect.prospectNo,
      changes: { client_no: client.clientNo, client_created: client.created },
    });
    return reread(tx, prospect.id, query);
  });
}

async function visibleClient(tx: Tx, p: Principal, clientNo: string) {
  const c = await tx.client.findFirst({ where: { AND: [{ clientNo }, clientVisibility(p)] } });
  if (!c) throw new ValidationError([{ field: 'clientNo', message: 'no client with this number that you can see' }]);
  return c;
}

/** The client as the prospect describes it, with what the caller sent filling gaps or correcting it. */
async function newClient(ctx: Context, tx: Tx, prospect: Prospect, d: ConvertInput) {
  const phone = d.phone ?? prospect.phone;
  if (!phone)
    throw new ValidationError([
      { field: 'phone', message: 'the prospect has no phone number; send one for the client' },
    ]);
  return clientService.createInTx(
    ctx,
    tx,
    {
      type: prospect.type === 'business' ? 'corporate' : 'individual',
      name: prospect.name,
      phone,
      email: d.email ?? prospect.email,
      idNo: d.idNo ?? prospect.idNo,
      kraPin: d.kraPin ?? prospect.kraPin,
      dateOfBirth: d.dateOfBirth,
      physicalAddress: d.physicalAddress,
      branchId: d.branchId,
      ...(await assigneeKeeps(tx, prospect.assigneeUserId, d)),
      force: d.force,
    },
    { onboardedVia: 'prospect' },
  );
}

/**
 * The assignee keeps the client they worked on, where the body names no one in their place: an agent as its sales
 * person, an account executive as its risk manager (the roles GET /sales-people and GET /risk-managers list, which
 * the client's create checks). Until 2026-12-01 an account executive became the sales person.
 */
async function assigneeKeeps(
  tx: Tx,
  assigneeId: number | null,
  d: Pick<ConvertInput, 'riskManagerId' | 'salesPersonId'>,
): Promise<{ riskManagerId?: number | null; salesPersonId?: number | null }> {
  const given = { riskManagerId: d.riskManagerId, salesPersonId: d.salesPersonId };
  if (assigneeId == null) return given;
  const u = await tx.user.findUnique({ where: { id: assigneeId } });
  const role = clientRoleOf(u);
  return role ? { ...given, [role]: given[role] ?? u!.id } : given;
}
