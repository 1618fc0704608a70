import { bindOrgClock } from './lib/clock.ts';
import { bindReader } from './db/replicas.ts';
import { randomUUID } from 'node:crypto';
import type { Principal, Credentials } from './auth/principal.ts';
import { authenticate } from './auth/principal.ts';
import { authenticateCustomer, type Customer } from './auth/customer.ts';
import type { Database, Tx, TxOptions } from './db/client.ts';
import type { PrismaClient } from './generated/prisma/client.ts';
import type { Config } from './lib/config.ts';
import type { Logger } from './lib/logger.ts';
import type { RateLimitDecision, RateLimitStore } from './lib/rate-limit.ts';
import type { EventBus } from './db/event-bus.ts';
import type { Caches } from './db/caches.ts';
import type { AuthSource } from './auth/auth-source.ts';
import type { DocumentStore } from './ports/document-store.ts';
import type { CertificateRegistryPort } from './ports/certificate-registry.ts';
import type { MobileMoneyPort } from './ports/mobile-money.ts';
import type { SmsGatewayPort } from './ports/sms-gateway.ts';
import type { IpfLenderPort } from './ports/ipf-lender.ts';
import type { MetricsPort } from './ports/metrics.ts';
import { AppError } from './lib/problem.ts';
import type { KeyedGate } from './lib/keyed-gate.ts';

/** Long-lived parts of the running service, shared by every request, WebSocket and job. */
export interface AppServices {
  db: Database;
  config: Config;
  log: Logger;
  rateLimits: RateLimitStore;
  events: EventBus;
  /** This process's caches of database state, invalidated across processes (src/db/caches.ts). */
  caches: Caches;
  /** Where bearer tokens are resolved: the principal cache over the database (src/auth/auth-source.ts). */
  auth: AuthSource;
  /**
   * Limits the transport imposes on business operations (src/http/rate-limits.ts builds them in src/app.ts): a
   * service says *when* an operation counts (after its input is validated), the transport says *how much* it may.
   */
  limits: OperationLimits;
  /** The mobile-money rail and the origin its callbacks come back to (src/ports/mobile-money.ts). */
  mobileMoney: MobileMoneyPort;
  /** The motor certificate registry rail, its clock and its queue (src/ports/certificate-registry.ts). */
  registry: CertificateRegistryPort;
  /** Where uploaded documents' bytes are kept (src/ports/document-store.ts): PostgreSQL unless DOCUMENT_STORE says files. */
  documents: DocumentStore<Tx>;
  /** Document reads longer than one range at once, per organisation and in all (DOCUMENT_READS_MAX; claims/documents/bytes.ts). */
  documentReads: KeyedGate<number>;
  /** The bulk-SMS gateway, its send queue and report URL (src/ports/sms-gateway.ts); set where pg-boss runs. */
  sms?: SmsGatewayPort;
  /** The premium-finance lender rail and its queues (src/ports/ipf-lender.ts); set where pg-boss runs. */
  lender?: IpfLenderPort;
  /** What /metrics counts (src/ports/metrics.ts): modules report through it, e.g. `app.metrics.paymentResult(…)`. */
  metrics: MetricsPort;
  /** Queues the sending of a client-area one-time code (the `client-area.otp` job, jobs/sms.worker.ts); set where pg-boss runs. */
  clientArea?: { queueCode(tenantId: number, otpId: number): Promise<void> };
  /** Queues a sandbox organisation's clock advance (jobs/sandbox.worker.ts); set where pg-boss runs. */
  sandbox?: { queueAdvance(tenantId: number): Promise<void> };
}

/** See AppServices.limits. */
export interface OperationLimits {
  /** A bind save (motor save, renewal bind): 3 per 15 seconds per API client by default; throws 429 rate_limited. */
  bind(p: Principal): Promise<RateLimitDecision>;
}

export type Transport = 'graphql' | 'websocket' | 'rest' | 'job' | 'test';

export interface Context {
  app: AppServices;
  requestId: string;
  log: Logger;
  transport: Transport;
  principal?: Principal;
  /** The client-area customer of X-Client-No + X-Client-Key, checked against the principal's organisation. */
  customer?: Customer;
  /** The caller's network address (REST and GraphQL over HTTP): the client area's per-IP sign-in throttle. */
  peerIp?: string;
  /** Runs a unit of work on the caller's tenant; joins the ambient transaction of an idempotent REST write. */
  tx<T>(fn: (tx: Tx) => Promise<T>, opts?: TxOptions): Promise<T>;
  /** Set by the REST facade for Idempotency-Key writes so the business write and the stored response commit together. */
  ambientTx?: Tx;
  /** A tenant-scoped Prisma client for the Pothos plugin's own loads (relation fallbacks, node lookups). */
  prismaForPlugin(): PrismaClient;
  /**
   * Work that must wait for the business transaction to commit (queueing a job that reads what it wrote). Inside an
   * ambient transaction it runs once that transaction has committed (and never if it rolls back); otherwise at once,
   * so call it after your own `ctx.tx(...)` has returned. Errors are logged, not thrown: sweeps catch what is lost.
   */
  afterCommit(fn: () => Promise<void>): Promise<void>;
  /** Document bytes this request has read so far, against its allowance (src/modules/claims/documents/bytes.ts). */
  documentBytesRead?: number;
  /** Deferred by afterCommit while an ambient transaction is open. */
  pendingAfterCommit?: (() => Promise<void>)[];
}

/** Runs (and clears) what afterCommit deferred; called by the owner of the ambient transaction once it committed. */
export async function runAfterCommit(ctx: Context): Promise<void> {
  const fns = ctx.pendingAfterCommit ?? [];
  ctx.pendingAfterCommit = undefined;
  for (const fn of fns) await fn().catch((err) => ctx.log.error({ err }, 'after-commit work failed'));
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Keeps a sane caller-supplied request id (so traces join up), otherwise makes one. */
export function requestIdFrom(incoming: string | null | undefined): string {
  return incoming && REQUEST_ID.test(incoming) ? incoming : `req_${randomUUID().replace(/-/g, '')}`;
}

const scopedClients = new WeakMap<Database, Map<number, PrismaClient>>();

function tenantScopedClient(db: Database, tenantId: number): PrismaClient {
  let byTenant = scopedClients.get(db);
  if (!byTenant) scopedClients.set(db, (byTenant = new Map<number, PrismaClient>()));
  let client = byTenant.get(tenantId);
  if (!client) {
    const base = db.prisma;
    client = base.$extends({
      query: {
        $allModels: {
          $allOperations({ model, operation, args }) {
            // A read-only unit of work of its own (Database.tenant: the organisation's share of the pool, a read
            // unit whose BEGIN READ ONLY carries the tenant, the COMMIT riding on the connection's next BEGIN). The
            // operation runs on the unit's client, not this one: a lone operation of a batch $transaction is sent
            // outside any unit, so with no tenant.
            const delegate = `${model.charAt(0).toLowerCase()}${model.slice(1)}`;
            return db.tenant(
              tenantId,
              (tx) =>
                (tx as unknown as Record<string, Record<string, (a: unknown) => Promise<unknown>>>)[delegate][
                  operation
                ](args),
              { readOnly: true },
            );
          },
        },
      },
    }) as unknown as PrismaClient;
    byTenant.set(tenantId, client);
  }
  return client;
}

export interface ContextInput {
  app: AppServices;
  transport: Transport;
  requestId?: string;
  credentials?: Credentials;
  /** Already-resolved principal (jobs, tests, or the REST facade which authenticated first). */
  principal?: Principal;
  peerIp?: string;
}

export async function createContext(input: ContextInput): Promise<Context> {
  const { app } = input;
  const requestId = input.requestId ?? requestIdFrom(undefined);
  const principal =
    input.principal ?? (input.credentials?.authorization ? await authenticate(app.auth, input.credentials) : undefined);
  // From here on the request runs on its organisation's clock (a sandbox organisation's own, else the service's).
  if (principal) bindOrgClock(principal.tenant.id, app.db.clocks.offsetFor(principal.tenant.id));
  // A request's reads may go to a read replica that has its caller's last write (src/db/replicas.ts); a
  // subscription's stay on the primary, where the NOTIFY it follows came from.
  if (principal && (input.transport === 'rest' || input.transport === 'graphql'))
    bindReader(`${principal.tenant.id}:${principal.apiClient.id}`);
  const creds = input.credentials;
  // Client headers bind only with a token of the client's organisation; wrong or replaced keys fail the request.
  const customer =
    principal && (creds?.clientNo || creds?.clientKey)
      ? await authenticateCustomer(app.db, principal, creds.clientNo, creds.clientKey)
      : undefined;
  let log: Logger | undefined;
  const ctx: Context = {
    app,
    requestId,
    // Made on first use: most requests log nothing, and a pino child serialises its bindings when it is made.
    get log() {
      return (log ??= app.log.child({
        request_id: requestId,
        tenant: ctx.principal?.tenant.code,
        client_id: ctx.principal?.apiClient.clientId,
      }));
    },
    transport: input.transport,
    principal,
    customer,
    peerIp: input.peerIp,
    tx(fn, opts) {
      if (ctx.ambientTx) return fn(ctx.ambientTx);
      if (!ctx.principal) throw new AppError('unauthenticated');
      return app.db.tenant(ctx.principal.tenant.id, fn, opts);
    },
    prismaForPlugin() {
      if (ctx.ambientTx) return ctx.ambientTx as unknown as PrismaClient;
      if (!ctx.principal) throw new AppError('unauthenticated');
      return tenantScopedClient(app.db, ctx.principal.tenant.id);
    },
    async afterCommit(fn) {
      if (ctx.ambientTx) {
        (ctx.pendingAfterCommit ??= []).push(fn);
        return;
      }
      await fn().catch((err) => ctx.log.error({ err }, 'after-commit work failed'));
    },
  };
  return ctx;
}
