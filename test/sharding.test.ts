import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '../jobs/queues.ts';
import { useDatabase } from './kit.ts';

/**
 * docs/performance.md "Beyond one database: sharding by organisation": what hash-distributing every organisation's rows on
 * tenant_id (Citus or the like) would take, read from the catalog of the migrated schema. The constants below are the
 * plan's gap as the README states it. Every list is compared whole, so a new table, key, foreign key, trigger or job
 * payload that widens the gap fails here until the plan (this file and the README) says what happens to it; one that
 * closes the gap fails too, so the plan shrinks with it.
 */

/** Every table that carries tenant_id: distributed on it, each organisation's rows on one node. */
const TENANT_TABLES = [
  'access_tokens',
  'api_clients',
  'audit_logs',
  'branches',
  'business_sources',
  'cancellations',
  'certificate_requests',
  'certificates',
  'claim_causes',
  'claim_document_files',
  'claim_documents',
  'claim_payments',
  'claim_reserve_movements',
  'claim_status_changes',
  'claims',
  'client_credits',
  'client_keys',
  'client_otps',
  'clients',
  'cover_products',
  'cover_rates',
  'credit_notes',
  'debit_notes',
  'document_blobs',
  'endorsements',
  'events',
  'idempotency_keys',
  'insurers',
  'ipf_allocations',
  'ipf_applications',
  'ipf_fee_bands',
  'ipf_instalments',
  'ipf_lender_calls',
  'ipf_lenders',
  'ipf_loans',
  'ipf_state_history',
  'ipf_tenors',
  'levies',
  'motor_product_benefits',
  'motor_products',
  'motor_rate_bands',
  'motor_tonnage_bands',
  'mpesa_callbacks',
  'mpesa_channels',
  'payment_requests',
  'policies',
  'policy_premium_items',
  'policy_risks',
  'policy_status_changes',
  'policy_taxes',
  'policy_vehicles',
  'prospect_notes',
  'prospect_types',
  'prospects',
  'quote_options',
  'quotes',
  'rating_versions',
  'receipt_allocations',
  'receipts',
  'renewal_quotes',
  'sandbox_clock_runs',
  'sandbox_clocks',
  'sms_accounts',
  'sms_ledger',
  'sms_messages',
  'sms_recipients',
  'sms_sender_ids',
  'sms_templates',
  'standard_products',
  'tenant_counters',
  'unmatched_payments',
  'users',
  'webhook_attempts',
  'webhook_deliveries',
  'webhook_endpoints',
];

/** Tables without tenant_id, and where each goes. pg-boss is not here: it keeps its own schema (`pgboss`). */
const GLOBAL_TABLES: Record<string, string> = {
  tenants: 'the root: a reference table on every node (or distributed on id, co-located with the rest)',
  _prisma_migrations: 'platform: the coordinator only',
  platform_secrets: 'platform: the coordinator only',
  mpesa_sim_prompts: 'simulator of the outside rail: the coordinator only (a real rail has no table here)',
  mpesa_sim_b2c: 'simulator of the outside rail: the coordinator only (a real rail has no table here)',
  registry_sim_certificates: 'simulator of the outside registry: the coordinator only',
  registry_sim_stock: 'simulator of the outside registry: the coordinator only',
  sms_sim_messages: 'simulator of the outside SMS gateway: the coordinator only (a real gateway has no table here)',
};

/**
 * Tenant tables whose primary key already holds tenant_id; every other tenant table's key gains it first: (id) becomes
 * (tenant_id, id), and a key of other columns (below) likewise.
 */
const PRIMARY_KEYS_WITH_TENANT = [
  'mpesa_channels',
  'rating_versions',
  'sandbox_clocks',
  'sms_accounts',
  'tenant_counters',
];

/** Tenant tables whose primary key (without tenant_id) is not (id), and its columns: document blobs by storage key. */
const PRIMARY_KEYS_NOT_ID: Record<string, string> = { document_blobs: 'key' };

/**
 * Unique keys of tenant tables without tenant_id, and what becomes of each. Every one gains tenant_id first (a
 * distributed table can only enforce uniqueness per organisation; for uuids and per-policy or per-client numbers that
 * is what the rule means). Those also looked up before the organisation is known need more: `routing table` (a small
 * global table maps the key's hash to its tenant_id: the token endpoint, every request, the rail's callback, a
 * customer's key), or `fan-out query` (rare, and read across organisations on purpose: the registry's certificate
 * numbers, checked when the registry reports one already taken; their global uniqueness is the registry's).
 */
const UNIQUE_KEYS_WITHOUT_TENANT: Record<string, 'tenant_id first' | 'routing table' | 'fan-out query'> = {
  'access_tokens(token_hash)': 'routing table',
  'api_clients(client_id)': 'routing table',
  'cancellations(uuid)': 'tenant_id first',
  'certificate_requests(policy_id)': 'tenant_id first',
  'certificates(certificate_no)': 'fan-out query',
  'certificates(policy_id, vehicle_id, stage, series)': 'tenant_id first',
  'certificates(uuid)': 'tenant_id first',
  'claim_document_files(uuid)': 'tenant_id first',
  'claim_documents(claim_id, kind)': 'tenant_id first',
  'claim_payments(uuid)': 'tenant_id first',
  'claims(uuid)': 'tenant_id first',
  'client_keys(key_hash)': 'routing table',
  'client_otps(uuid)': 'tenant_id first',
  'endorsements(uuid)': 'tenant_id first',
  'idempotency_keys(api_client_id, key)': 'tenant_id first',
  'ipf_applications(uuid)': 'tenant_id first',
  'ipf_instalments(loan_id, seq)': 'tenant_id first',
  'ipf_loans(application_id)': 'tenant_id first',
  'ipf_loans(uuid)': 'tenant_id first',
  'ipf_tenors(lender_id, months)': 'tenant_id first',
  'motor_product_benefits(motor_product_id, name)': 'tenant_id first',
  'mpesa_channels(callback_token_hash)': 'routing table',
  'mpesa_channels(previous_token_hash)': 'routing table',
  'payment_requests(api_client_id, idempotency_key)': 'tenant_id first',
  'policies(renewal_of_id)': 'tenant_id first',
  'policies(uuid)': 'tenant_id first',
  'prospects(uuid)': 'tenant_id first',
  'quotes(uuid)': 'tenant_id first',
  'receipts(payment_request_id)': 'tenant_id first',
  'renewal_quotes(new_policy_id)': 'tenant_id first',
  'renewal_quotes(uuid)': 'tenant_id first',
  'sandbox_clock_runs(uuid)': 'tenant_id first',
  'sms_messages(uuid)': 'tenant_id first',
  // Looked up by a delivery report, whose URL's token names the organisation first.
  'sms_recipients(gateway_message_id)': 'tenant_id first',
  'webhook_attempts(delivery_id, number)': 'tenant_id first',
  'webhook_deliveries(event_id, endpoint_id)': 'tenant_id first',
};

/** Foreign keys between tenant tables that do not pair tenant_id with tenant_id: each gains it on both sides. */
const FOREIGN_KEYS_WITHOUT_TENANT = [
  'access_tokens(api_client_id) → api_clients(id)',
  'api_clients(actor_user_id) → users(id)',
  'api_clients(created_by_user_id) → users(id)',
  'cancellations(credit_note_id) → credit_notes(id)',
  'cancellations(policy_id) → policies(id)',
  'cancellations(reinstatement_note_id) → debit_notes(id)',
  'certificate_requests(policy_id) → policies(id)',
  'certificates(policy_id) → policies(id)',
  'certificates(vehicle_id) → policy_vehicles(id)',
  'claim_document_files(claim_id) → claims(id)',
  'claim_document_files(document_id) → claim_documents(id)',
  'claim_documents(claim_id) → claims(id)',
  'claim_payments(claim_id) → claims(id)',
  'claim_reserve_movements(claim_id) → claims(id)',
  'claim_status_changes(claim_id) → claims(id)',
  'claims(assignee_user_id) → users(id)',
  'claims(client_id) → clients(id)',
  'claims(created_by_user_id) → users(id)',
  'claims(insurer_id) → insurers(id)',
  'claims(policy_id) → policies(id)',
  'claims(risk_id) → policy_risks(id)',
  'claims(vehicle_id) → policy_vehicles(id)',
  'client_credits(client_id) → clients(id)',
  'client_keys(client_id) → clients(id)',
  'clients(branch_id) → branches(id)',
  'clients(business_source_id) → business_sources(id)',
  'clients(created_by_user_id) → users(id)',
  'clients(prospect_type_id) → prospect_types(id)',
  'clients(risk_manager_id) → users(id)',
  'clients(sales_person_id) → users(id)',
  'cover_products(insurer_id) → insurers(id)',
  'cover_rates(cover_product_id) → cover_products(id)',
  'credit_notes(policy_id) → policies(id)',
  'debit_notes(policy_id) → policies(id)',
  'endorsements(credit_note_id) → credit_notes(id)',
  'endorsements(debit_note_id) → debit_notes(id)',
  'endorsements(policy_id) → policies(id)',
  'idempotency_keys(api_client_id) → api_clients(id)',
  'ipf_allocations(instalment_id) → ipf_instalments(id)',
  'ipf_allocations(loan_id) → ipf_loans(id)',
  'ipf_allocations(receipt_id) → receipts(id)',
  'ipf_applications(client_id) → clients(id)',
  'ipf_applications(lender_id) → ipf_lenders(id)',
  'ipf_applications(policy_id) → policies(id)',
  'ipf_fee_bands(lender_id) → ipf_lenders(id)',
  'ipf_instalments(loan_id) → ipf_loans(id)',
  'ipf_lender_calls(application_id) → ipf_applications(id)',
  'ipf_lender_calls(loan_id) → ipf_loans(id)',
  'ipf_loans(application_id) → ipf_applications(id)',
  'ipf_loans(client_id) → clients(id)',
  'ipf_loans(lender_id) → ipf_lenders(id)',
  'ipf_loans(policy_id) → policies(id)',
  'ipf_tenors(lender_id) → ipf_lenders(id)',
  'motor_product_benefits(motor_product_id) → motor_products(id)',
  'motor_products(insurer_id) → insurers(id)',
  'motor_rate_bands(motor_product_id) → motor_products(id)',
  'motor_tonnage_bands(motor_product_id) → motor_products(id)',
  'payment_requests(policy_id) → policies(id)',
  'policies(client_id) → clients(id)',
  'policies(cover_product_id) → cover_products(id)',
  'policies(created_by_user_id) → users(id)',
  'policies(insurer_id) → insurers(id)',
  'policies(motor_product_id) → motor_products(id)',
  'policies(quote_id) → quotes(id)',
  'policies(renewal_of_id) → policies(id)',
  'policies(sales_person_id) → users(id)',
  'policy_premium_items(policy_id) → policies(id)',
  'policy_premium_items(risk_id) → policy_risks(id)',
  'policy_premium_items(vehicle_id) → policy_vehicles(id)',
  'policy_risks(policy_id) → policies(id)',
  'policy_status_changes(policy_id) → policies(id)',
  'policy_taxes(policy_id) → policies(id)',
  'policy_vehicles(policy_id) → policies(id)',
  'prospect_notes(prospect_id) → prospects(id)',
  'prospects(assignee_user_id) → users(id)',
  'prospects(client_id) → clients(id)',
  'prospects(created_by_user_id) → users(id)',
  'quote_options(cover_product_id) → cover_products(id)',
  'quote_options(insurer_id) → insurers(id)',
  'quote_options(motor_product_id) → motor_products(id)',
  'quote_options(quote_id) → quotes(id)',
  'quotes(client_id) → clients(id)',
  'quotes(created_by_user_id) → users(id)',
  'receipt_allocations(debit_note_id) → debit_notes(id)',
  'receipt_allocations(receipt_id) → receipts(id)',
  'receipts(client_id) → clients(id)',
  'receipts(policy_id) → policies(id)',
  'renewal_quotes(new_policy_id) → policies(id)',
  'renewal_quotes(policy_id) → policies(id)',
  'sms_recipients(message_id) → sms_messages(id)',
  'users(branch_id) → branches(id)',
  'webhook_attempts(delivery_id) → webhook_deliveries(id)',
  'webhook_deliveries(endpoint_id) → webhook_endpoints(id)',
  'webhook_deliveries(event_id) → events(id)',
];

/** Triggers that NOTIFY from a tenant table (or tenants): on a cluster they fire on the node holding the row. */
const NOTIFYING_TRIGGERS = [
  'access_tokens.bima_principal_changed',
  'api_clients.bima_principal_changed',
  'branches.bima_directory_changed',
  'business_sources.bima_directory_changed',
  'cover_products.bima_rating_changed',
  'cover_rates.bima_rating_changed',
  'insurers.bima_rating_changed',
  'ipf_fee_bands.bima_rating_changed',
  'ipf_lenders.bima_rating_changed',
  'ipf_tenors.bima_rating_changed',
  'levies.bima_rating_changed',
  'motor_product_benefits.bima_rating_changed',
  'motor_products.bima_rating_changed',
  'prospect_types.bima_directory_changed',
  'motor_rate_bands.bima_rating_changed',
  'motor_tonnage_bands.bima_rating_changed',
  'sandbox_clocks.bima_clock_changed',
  'standard_products.bima_rating_changed',
  'tenants.bima_principal_changed',
  'users.bima_directory_changed',
  'users.bima_principal_changed',
];

/** Queues whose payload names a tenant row by id alone: a worker's lookup would visit every node. */
const JOBS_WITHOUT_TENANT = [
  'certificates.cancel(certificateId)',
  'certificates.issue(policyId)',
  'claims.payout(paymentId)',
  'events.dispatch(eventId)',
  'ipf.decide(applicationId)',
  'ipf.disburse(loanId)',
  'rails.b2c-sim.resolve(originatorConversationId)',
  'rails.mpesa-sim.resolve(checkoutRequestId)',
  'rails.sms-sim.deliver(gatewayMessageId)',
  'sms.send(recipientId)',
  'webhooks.deliver(deliveryId)',
];

const d = useDatabase();
let db: pg.Client;
beforeAll(async () => {
  db = new pg.Client({ connectionString: d.url });
  await db.connect();
});
afterAll(() => db?.end());

const rows = async <T extends pg.QueryResultRow>(sql: string) => (await db.query<T>(sql)).rows;
const sorted = (xs: Iterable<string>) => [...xs].sort();
/** A column list read from a constraint or index, in its order. */
const colsOf = (rel: string, keys: string) => `array(
  SELECT a.attname::text FROM unnest(${keys}) WITH ORDINALITY k(n, o)
    JOIN pg_attribute a ON a.attrelid = ${rel} AND a.attnum = k.n ORDER BY k.o)`;

interface Table {
  name: string;
  has_tenant: boolean;
  tenant_not_null: boolean | null;
  tenant_type: string | null;
  rls: boolean;
  forced: boolean;
  policies: string[];
}
const tables = () =>
  rows<Table>(`
    SELECT c.relname::text AS name, a.attnum IS NOT NULL AS has_tenant, a.attnotnull AS tenant_not_null,
           format_type(a.atttypid, a.atttypmod) AS tenant_type, c.relrowsecurity AS rls, c.relforcerowsecurity AS forced,
           array(SELECT p.polname::text FROM pg_policy p WHERE p.polrelid = c.oid ORDER BY 1) AS policies
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
      LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped
     WHERE c.relkind IN ('r', 'p')`);

const tenantTables = async () => new Set((await tables()).filter((t) => t.has_tenant).map((t) => t.name));

/** Primary and unique keys (`table(cols)`) of tenant tables that do not hold tenant_id. */
async function keysWithoutTenant(): Promise<{ primary: string[]; unique: string[] }> {
  const tenant = await tenantTables();
  const all = await rows<{ tbl: string; pk: boolean; cols: string[]; def: string; plain: boolean }>(`
    SELECT t.relname::text AS tbl, i.indisprimary AS pk, ${colsOf('i.indrelid', 'i.indkey::int2[]')} AS cols,
           pg_get_indexdef(i.indexrelid) AS def, i.indexprs IS NULL AND i.indpred IS NULL AS plain
      FROM pg_index i
      JOIN pg_class t ON t.oid = i.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = 'public'
     WHERE i.indisunique`);
  // Unique constraints and Prisma's unique indexes alike. An expression or partial index is named by its definition:
  // its columns alone would not say what it keeps unique.
  const gap = all.filter((u) => tenant.has(u.tbl) && !u.cols.includes('tenant_id'));
  return {
    primary: sorted(gap.filter((u) => u.pk).map((u) => `${u.tbl}(${u.cols.join(', ')})`)),
    unique: sorted(gap.filter((u) => !u.pk).map((u) => (u.plain ? `${u.tbl}(${u.cols.join(', ')})` : u.def))),
  };
}

interface ForeignKey {
  tbl: string;
  ref: string;
  cols: string[];
  refcols: string[];
}
const foreignKeys = () =>
  rows<ForeignKey>(`
    SELECT s.relname::text AS tbl, r.relname::text AS ref,
           ${colsOf('c.conrelid', 'c.conkey')} AS cols, ${colsOf('c.confrelid', 'c.confkey')} AS refcols
      FROM pg_constraint c
      JOIN pg_class s ON s.oid = c.conrelid
      JOIN pg_class r ON r.oid = c.confrelid
      JOIN pg_namespace n ON n.oid = c.connamespace AND n.nspname = 'public'
     WHERE c.contype = 'f'`);
const fkName = (f: ForeignKey) => `${f.tbl}(${f.cols.join(', ')}) → ${f.ref}(${f.refcols.join(', ')})`;

/** Foreign keys between tenant tables that do not match tenant_id to tenant_id (Citus needs that to co-locate them). */
async function foreignKeysWithoutTenant(): Promise<string[]> {
  const tenant = await tenantTables();
  const paired = (f: ForeignKey) =>
    f.cols.includes('tenant_id') && f.cols.indexOf('tenant_id') === f.refcols.indexOf('tenant_id');
  return sorted((await foreignKeys()).filter((f) => tenant.has(f.tbl) && tenant.has(f.ref) && !paired(f)).map(fkName));
}

describe('the tables: distributed on tenant_id, or global', () => {
  it('every table with tenant_id is a distribution candidate; the others are the known global ones', async () => {
    const all = await tables();
    expect(sorted(all.filter((t) => t.has_tenant).map((t) => t.name))).toEqual(sorted(TENANT_TABLES));
    expect(sorted(all.filter((t) => !t.has_tenant).map((t) => t.name))).toEqual(sorted(Object.keys(GLOBAL_TABLES)));
    // The migrations create tables in public only; pg-boss makes its own schema when it starts.
    const schemas = await rows<{ s: string }>(`
      SELECT DISTINCT n.nspname::text AS s FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
         AND n.nspname NOT LIKE 'pg_toast%'`);
    expect(schemas.map((r) => r.s)).toEqual(['public']);
  });

  it('holds already: tenant_id is NOT NULL everywhere and of the type of tenants.id (co-location needs one type)', async () => {
    const all = (await tables()).filter((t) => t.has_tenant);
    expect(all.length).toBe(TENANT_TABLES.length);
    const [root] = await rows<{ t: string }>(`
      SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute
       WHERE attrelid = 'public.tenants'::regclass AND attname = 'id'`);
    expect(root.t).toBe('integer');
    for (const t of all) {
      expect({ table: t.name, notNull: t.tenant_not_null, type: t.tenant_type }).toEqual({
        table: t.name,
        notNull: true,
        type: root.t,
      });
    }
  });

  it("holds already: every tenant table, and tenants, has forced row-level security with the tenant_isolation policy (and the system role's)", async () => {
    const all = (await tables()).filter((t) => t.has_tenant || t.name === 'tenants');
    expect(all.length).toBe(TENANT_TABLES.length + 1);
    for (const t of all) {
      expect({ table: t.name, rls: t.rls, forced: t.forced, policies: t.policies }).toEqual({
        table: t.name,
        rls: true,
        forced: true,
        policies: ['system_access', 'tenant_isolation'],
      });
    }
  });
});

describe('keys: every primary and unique key of a distributed table must hold tenant_id', () => {
  it('primary keys: all but three lack tenant_id; (id), or document_blobs(key), gains it first', async () => {
    const expected = TENANT_TABLES.filter((t) => !PRIMARY_KEYS_WITH_TENANT.includes(t)).map(
      (t) => `${t}(${PRIMARY_KEYS_NOT_ID[t] ?? 'id'})`,
    );
    expect((await keysWithoutTenant()).primary).toEqual(sorted(expected));
  });

  it('unique keys without tenant_id: each gains it, and the ones looked up first are routed', async () => {
    expect((await keysWithoutTenant()).unique).toEqual(sorted(Object.keys(UNIQUE_KEYS_WITHOUT_TENANT)));
    // The README's routing table, by name.
    const routed = Object.keys(UNIQUE_KEYS_WITHOUT_TENANT).filter(
      (k) => UNIQUE_KEYS_WITHOUT_TENANT[k] === 'routing table',
    );
    expect(sorted(routed)).toEqual([
      'access_tokens(token_hash)',
      'api_clients(client_id)',
      'client_keys(key_hash)',
      'mpesa_channels(callback_token_hash)',
      'mpesa_channels(previous_token_hash)',
    ]);
  });
});

describe('foreign keys: co-located only when tenant_id is paired with tenant_id', () => {
  it('between tenant tables: each listed key gains tenant_id on both sides', async () => {
    expect(await foreignKeysWithoutTenant()).toEqual(sorted(FOREIGN_KEYS_WITHOUT_TENANT));
  });

  it('holds already: a tenant table refers to tenants by tenant_id alone, and to no other global table', async () => {
    const tenant = await tenantTables();
    const crossing = (await foreignKeys()).filter(
      (f) => tenant.has(f.tbl) !== tenant.has(f.ref) || f.ref === 'tenants',
    );
    expect(crossing.length).toBeGreaterThan(20);
    for (const f of crossing) expect(fkName(f)).toBe(`${f.tbl}(tenant_id) → tenants(id)`);
  });
});

describe('what runs beside the rows', () => {
  it('triggers that NOTIFY: heard only by listeners on the node where the row lives', async () => {
    const found = await rows<{ t: string }>(`
      SELECT c.relname || '.' || t.tgname AS t
        FROM pg_trigger t
        JOIN pg_class c ON c.oid = t.tgrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
        JOIN pg_proc p ON p.oid = t.tgfoid
       WHERE NOT t.tgisinternal AND p.prosrc ILIKE '%pg_notify%'`);
    expect(sorted(found.map((r) => r.t))).toEqual(sorted(NOTIFYING_TRIGGERS));
  });

  it('job payloads that name a row by id without its tenant_id', () => {
    const gap = Object.values(QUEUES)
      .map((q) => ({ name: q.name, keys: Object.keys(q.payload.shape) }))
      .filter((q) => q.keys.some((k) => k.endsWith('Id')) && !q.keys.includes('tenantId'))
      .map((q) => `${q.name}(${q.keys.join(', ')})`);
    expect(sorted(gap)).toEqual(sorted(JOBS_WITHOUT_TENANT));
  });
});

describe('the checks can fail', () => {
  it('a tenant table with a bare key, a unique code and a foreign key to policies shows in every list', async () => {
    // Rolled back: the catalog is transactional, so the probe is seen by this connection only and only here.
    await db.query('BEGIN');
    try {
      await db.query(`CREATE TABLE sharding_probe (
        id serial PRIMARY KEY,
        tenant_id integer NOT NULL REFERENCES tenants(id),
        code text UNIQUE,
        policy_id integer REFERENCES policies(id),
        UNIQUE (tenant_id, policy_id))`);
      expect(await tenantTables()).toContain('sharding_probe');
      const keys = await keysWithoutTenant();
      expect(keys.primary).toContain('sharding_probe(id)');
      expect(keys.unique).toContain('sharding_probe(code)');
      expect(keys.unique).not.toContain('sharding_probe(tenant_id, policy_id)');
      const fks = await foreignKeysWithoutTenant();
      expect(fks).toContain('sharding_probe(policy_id) → policies(id)');
      expect(fks.filter((f) => f.startsWith('sharding_probe'))).toHaveLength(1);
    } finally {
      await db.query('ROLLBACK');
    }
    expect(await tenantTables()).not.toContain('sharding_probe');
  });
});
