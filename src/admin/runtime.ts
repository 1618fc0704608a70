import pino from 'pino';
import type { Principal, TenantInfo } from '../auth/principal.ts';
import { ALL_SCOPES } from '../auth/scopes.ts';
import { type AppServices, type Context, createContext } from '../context.ts';
import { Database } from '../db/client.ts';
import { EventBus } from '../db/event-bus.ts';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';
import { AppError } from '../lib/problem.ts';
import { offlineServices } from '../process/offline-services.ts';
import { CliError, probeDatabase, resolveDatabaseUrl } from './database.ts';

/** What every command runs with: the service's parts over its database, and who is at the console. */
export interface Runtime {
  app: AppServices;
  operator: string;
  /** Where the service's database is (DATABASE_URL, else the running embedded one). */
  databaseUrl: string;
  /** The operator acting on one organisation (by code): the services' Context, audited as `system (operator …)`. */
  orgContext(code: string): Promise<Context>;
  /** The same for an organisation row in hand (one being created, inside its transaction). */
  contextFor(tenant: TenantInfo): Promise<Context>;
  /** The organisation's row as the principal carries it (any status), or a refusal naming the code. */
  organisation(code: string): Promise<TenantInfo>;
  close(): Promise<void>;
}

/** Logs go to stderr (LOG_LEVEL, default warn): stdout is the command's answer, which --json callers parse. */
function stderrLogger(config: Config): Logger {
  const level = process.env.LOG_LEVEL ? config.logLevel : 'warn';
  return pino({ level, base: { service: 'bima-admin' } }, pino.destination(2));
}

/**
 * The services over a pool of our own (src/process/offline-services.ts), with no bind (not an admin operation) and no
 * mobile-money rail. The event bus listens, so a change to what servers cache is heard by every server before the
 * command returns.
 */
async function buildServices(config: Config, databaseUrl: string, log: Logger): Promise<AppServices> {
  const db = await Database.connect(databaseUrl, { poolSize: 4, poolWaitMs: 10_000 });
  const events = new EventBus(databaseUrl, (err) => log.error({ err }, 'event bus error'));
  await events.start();
  await db.clocks.follow(events, (err) => log.error({ err }, 'sandbox clocks: reload failed'));
  return offlineServices(db, config, log, {
    events,
    limits: {
      bind: () => Promise.reject(new AppError('domain_rule', { detail: 'Binding is not an admin operation' })),
    },
    mobileMoney: {},
  });
}

/**
 * The rows a flow's writes name as their author where a service has no author-less form (a bind's client and policy,
 * a cancellation, an STK push): one of the organisation's own API clients and its actor user. `trigger` acts through
 * them; the audit log still records the `system` actor with the operator's name.
 */
export interface Author {
  apiClient: Principal['apiClient'];
  userId: number;
}

/** The principal of the operator on one organisation: every scope, an admin's abilities, no user of the organisation. */
export function operatorPrincipal(tenant: TenantInfo, operator: string, author?: Author): Principal {
  return {
    tenant,
    apiClient: author?.apiClient ?? { id: 0, clientId: 'admin-cli', name: 'admin CLI', rateLimitPerMinute: null },
    token: { id: 0, expiresAt: new Date(8.64e15) },
    scopes: new Set(ALL_SCOPES),
    actor: {
      userId: author?.userId ?? 0,
      name: `system (operator ${operator})`,
      role: 'admin',
      code: null,
      branchId: null,
      ownRecordsOnly: false,
      source: 'key_creator',
    },
    operator,
  };
}

export async function openRuntime(config: Config, operator: string): Promise<Runtime> {
  const databaseUrl = resolveDatabaseUrl(config);
  await probeDatabase(databaseUrl);
  const log = stderrLogger(config);
  const app = await buildServices(config, databaseUrl, log);
  return runtimeOver(app, operator, databaseUrl, async () => {
    await app.events.close();
    await app.rateLimits.close();
    await app.db.close();
  });
}

/**
 * A command run inside the started service (its admin socket, socket.ts): the service's own parts, which the command
 * must not close.
 */
export function serviceRuntime(app: AppServices, operator: string, databaseUrl: string): Runtime {
  return runtimeOver(app, operator, databaseUrl, async () => undefined);
}

/** A value echoed in a refusal, cut to a readable length (an operator's paste may be kilobytes). */
function shorten(v: string): string {
  return v.length > 64 ? `${v.slice(0, 64)}…` : v;
}

function runtimeOver(app: AppServices, operator: string, databaseUrl: string, close: () => Promise<void>): Runtime {
  const organisation = async (code: string): Promise<TenantInfo> => {
    const t = await app.db.system((tx) => tx.tenant.findUnique({ where: { code } }));
    if (!t) throw new CliError(`no organisation with code ${JSON.stringify(shorten(code))}`);
    return { id: t.id, code: t.code, name: t.name, type: t.type, paybill: t.paybill, status: t.status };
  };
  return {
    app,
    operator,
    databaseUrl,
    organisation,
    contextFor: (tenant) => createContext({ app, transport: 'job', principal: operatorPrincipal(tenant, operator) }),
    orgContext: async (code) =>
      createContext({ app, transport: 'job', principal: operatorPrincipal(await organisation(code), operator) }),
    close,
  };
}
