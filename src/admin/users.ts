import { z } from 'zod';
import { runAfterCommit, type Context } from '../context.ts';
import type { Tx } from '../db/client.ts';
import type { UserRole } from '../generated/prisma/enums.ts';
import { normalisePhone } from '../lib/identifiers.ts';
import { ValidationError } from '../lib/problem.ts';
import { parseInput } from '../lib/validate.ts';
import { apiClientService } from '../modules/api-clients/api-client.service.ts';
import { recordAudit } from '../modules/audit/audit.service.ts';
import {
  type Command,
  type CommandGroup,
  lines,
  oneOf,
  type OptionSpec,
  required,
  SHOWN_ONCE,
  str,
  type Values,
  ORG,
} from './command.ts';
import type { Runtime } from './runtime.ts';

const ROLES = ['admin', 'account_exec', 'agent', 'viewer'] as const;

const userSchema = z.object({
  name: z.string().trim().min(1, 'required').max(120, 'at most 120 characters'),
  email: z.string().trim().toLowerCase().pipe(z.email('not an email address')),
  phone: z
    .string()
    .transform((p) => normalisePhone(p))
    .refine((p): p is string => p !== null, 'a Kenyan mobile number, e.g. 0712345678'),
  agentCode: z
    .string()
    .trim()
    .regex(/^[A-Z0-9][A-Z0-9-]{1,19}$/, '2–20 capital letters, digits and hyphens')
    .nullish(),
  branch: z.string().trim().min(1).nullish(),
});

/** The user row, its audit line, in the caller's transaction; a taken email or agent code is a field error. */
async function insertUser(ctx: Context, tx: Tx, role: UserRole, input: z.infer<typeof userSchema>) {
  const tenantId = ctx.principal!.tenant.id;
  const taken = await tx.user.findFirst({
    where: { OR: [{ email: input.email }, ...(input.agentCode ? [{ agentCode: input.agentCode }] : [])] },
  });
  if (taken) {
    const field = taken.email === input.email ? 'email' : 'agent-code';
    throw new ValidationError([{ field, message: 'already used by another user of this organisation' }]);
  }
  let branchId: number | null = null;
  if (input.branch) {
    const b = await tx.branch.findFirst({ where: { code: input.branch } });
    if (!b) throw new ValidationError([{ field: 'branch', message: 'no branch with this code in the organisation' }]);
    branchId = b.id;
  }
  const user = await tx.user.create({
    data: {
      tenantId,
      name: input.name,
      email: input.email,
      phone: input.phone,
      role,
      agentCode: input.agentCode ?? null,
      branchId,
    },
  });
  await recordAudit(ctx, tx, tenantId, {
    action: 'user.created',
    entityType: 'user',
    entityId: user.id,
    changes: { name: user.name, email: user.email, role, agent_code: user.agentCode, branch_id: branchId },
  });
  return user;
}

/**
 * A user, and for an agent its X-Agent-Key, in one transaction (the key through the api-clients service, as the API
 * issues it): either both exist or neither.
 */
async function createUser(rt: Runtime, v: Values, role: UserRole) {
  const ctx = await rt.orgContext(required(v, 'org'));
  const input = parseInput(userSchema, {
    name: str(v, 'name'),
    email: str(v, 'email'),
    phone: str(v, 'phone'),
    agentCode: str(v, 'agent-code'),
    branch: str(v, 'branch'),
  });
  if (role === 'agent' && !input.agentCode) {
    throw new ValidationError([{ field: 'agent-code', code: 'required', message: 'required for an agent' }]);
  }
  const { user, agentKey } = await rt.app.db.tenant(ctx.principal!.tenant.id, async (tx) => {
    ctx.ambientTx = tx;
    try {
      const row = await insertUser(ctx, tx, role, input);
      const key = role === 'agent' ? (await apiClientService.issueAgentKey(ctx, row.id)).agentKey : undefined;
      return { user: row, agentKey: key };
    } finally {
      ctx.ambientTx = undefined;
    }
  });
  await runAfterCommit(ctx);
  const json = {
    id: user.id,
    organisation: ctx.principal!.tenant.code,
    name: user.name,
    email: user.email,
    phone: user.phone,
    role: user.role,
    agent_code: user.agentCode,
    ...(agentKey ? { agent_key: agentKey } : {}),
  };
  const note = agentKey ? `\n(agent_key ${SHOWN_ONCE}; send it as X-Agent-Key with X-Agent-Code)` : '';
  return { json, text: lines(json) + note };
}

const common: Record<string, OptionSpec> = {
  org: ORG,
  name: { type: 'string', arg: '<name>', description: 'full name', required: true },
  email: { type: 'string', arg: '<email>', description: 'email, unique in the organisation', required: true },
  phone: { type: 'string', arg: '<phone>', description: 'Kenyan mobile number', required: true },
  branch: { type: 'string', arg: '<code>', description: 'branch code (optional)' },
};

const userCommands: Command[] = [
  {
    name: 'create',
    summary: 'create a user of an organisation (an API client can then act as them)',
    options: {
      ...common,
      role: { type: 'string', arg: `<${ROLES.join('|')}>`, description: 'what they may do', required: true },
      'agent-code': { type: 'string', arg: '<code>', description: 'agent code (role agent only)' },
    },
    run: (rt, v) => createUser(rt, v, oneOf(v, 'role', ROLES)),
  },
];

const agentCommands: Command[] = [
  {
    name: 'create',
    summary: 'create an agent with an agent code and issue their X-Agent-Key (printed once)',
    options: {
      ...common,
      'agent-code': { type: 'string', arg: '<code>', description: 'agent code, e.g. AG-0200', required: true },
    },
    run: (rt, v) => createUser(rt, v, 'agent'),
  },
];

export const users: CommandGroup = { name: 'users', summary: 'users of an organisation', commands: userCommands };
export const agents: CommandGroup = { name: 'agents', summary: 'agents and their keys', commands: agentCommands };
