import type { Context } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { normaliseIdNo, normaliseKraPin, normalisePhone } from '../../lib/identifiers.ts';
import { DuplicateClientError, ValidationError, validationDetail } from '../../lib/problem.ts';
import { ownsClient, clientVisibility } from '../access/client.visibility.ts';
import { clientService, describeMatches, findIdentityMatches, lockIdentifiers } from './client.service.ts';

/** The insured as sent with a quote or a bind (GraphQL spelling). */
export interface InsuredInput {
  name?: string | null;
  phone?: string | null;
  email?: string | null;
  idNo?: string | null;
  kraPin?: string | null;
  riskManagerId?: number | null;
  branchId?: number | null;
  salesPersonId?: number | null;
  agentCode?: string | null;
  clientNo?: string | null;
  force?: boolean | null;
  type?: string | null;
}

/**
 * The policyholder found or added. A client added with `numberLater` has a stand-in `clientNo` until `complete` runs
 * (it draws the number, writes it and the audit entry, and returns it): run it just before the transaction ends.
 */
export interface Insured {
  id: number;
  clientNo: string;
  salesPersonId: number | null;
  created: boolean;
  complete?: () => Promise<string>;
}

/** Names agree when one's words are all in the other's (case, spacing and punctuation aside): "John Kariuki" ~ "KARIUKI John M.". */
export function namesAgree(a: string, b: string): boolean {
  const words = (s: string) =>
    new Set(
      s
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s]/gu, ' ')
        .split(/\s+/)
        .filter((w) => w.length > 1),
    );
  const x = words(a);
  const y = words(b);
  if (!x.size || !y.size) return false;
  const [small, big] = x.size <= y.size ? [x, y] : [y, x];
  return [...small].every((w) => big.has(w));
}

/**
 * The spec's matching rule for saves: an existing client is reused only when the ID number or tax PIN matches,
 * the name agrees and the caller may see that client. Any other match (phone only, another name, someone else's
 * client) is 409 duplicate_client listing the matches (client_no only for clients the caller can see), resolved
 * with `clientNo` (link a visible client) or `force` (add a new one). A reused client's sales person and risk
 * manager are never changed.
 */
export async function resolveInsured(
  ctx: Context,
  tx: Tx,
  input: InsuredInput,
  field = 'client',
  opts: { numberLater?: boolean } = {},
): Promise<Insured> {
  const p = ctx.principal!;
  if (input.clientNo) {
    const c = await tx.client.findFirst({ where: { AND: [{ clientNo: input.clientNo }, clientVisibility(p)] } });
    if (!c)
      throw new ValidationError([
        { field: `${field}.client_no`, message: 'no client with this number that you can see' },
      ]);
    return { id: c.id, clientNo: c.clientNo, salesPersonId: c.salesPersonId, created: false };
  }
  let salesPersonId = input.salesPersonId ?? null;
  if (salesPersonId == null && input.agentCode) {
    const agent = await tx.user.findFirst({ where: { agentCode: input.agentCode, disabled: false } });
    if (!agent) throw new ValidationError([{ field: `${field}.agentcode`, message: 'no agent with this code' }]);
    salesPersonId = agent.id;
  }
  const createInput = {
    type: input.type,
    name: input.name,
    phone: input.phone,
    email: input.email,
    idNo: input.idNo,
    kraPin: input.kraPin,
    riskManagerId: input.riskManagerId,
    branchId: input.branchId,
    salesPersonId,
  };
  if (!input.force) {
    const ids = {
      phone: input.phone ? normalisePhone(input.phone) : null,
      idNo: input.idNo ? normaliseIdNo(input.idNo) : null,
      kraPin: input.kraPin ? normaliseKraPin(input.kraPin) : null,
    };
    await lockIdentifiers(tx, p.tenant.id, Object.values(ids));
    const matches = await findIdentityMatches(tx, ids);
    if (matches.length) {
      const reusable = matches.find(
        (m) =>
          (m.matched.includes('id_no') || m.matched.includes('kra_pin')) &&
          namesAgree(m.name, input.name ?? '') &&
          ownsClient(p, m),
      );
      if (reusable)
        return { id: reusable.id, clientNo: reusable.clientNo, salesPersonId: reusable.salesPersonId, created: false };
      throw new DuplicateClientError(describeMatches(p, matches));
    }
  }
  try {
    const created = await clientService.createInTx(
      ctx,
      tx,
      { ...createInput, force: true },
      { onboardedVia: 'api', identifiersLocked: !input.force, numberLater: opts.numberLater },
    );
    return {
      id: created.id,
      clientNo: created.clientNo,
      salesPersonId: created.salesPersonId,
      created: true,
      complete: created.complete,
    };
  } catch (e) {
    if (e instanceof ValidationError) {
      // A detail built from the field errors is built again from the renamed fields (never `idNo: …` beside a
      // field `client.idno`); a detail in the service's own words is kept.
      // A field named the GraphQL way (`input.salesPersonId`, from the references check) is named from the client.
      const errors = e.errors!.map((x) => ({ ...x, field: `${field}.${x.field.replace(/^input\./, '')}` }));
      throw new ValidationError(errors, e.detail === validationDetail(e.errors!) ? undefined : e.detail);
    }
    throw e;
  }
}
