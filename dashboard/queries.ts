/** The GraphQL documents the dashboard sends, and the shapes it reads back. */

export const FIGURES = /* GraphQL */ `
  query DashboardFigures($date: String) {
    me {
      tenant {
        name
      }
      client {
        name
      }
      actor {
        name
        role
        ownRecordsOnly
      }
      scopes
    }
    collectionsSummary(date: $date) {
      date
      count
      amount {
        amount
      }
      successRate
      byHour {
        hour
        count
        amount {
          amount
        }
      }
      prompts {
        status
        resultCode
        count
      }
    }
    policyCounts {
      status
      count
    }
    claimCounts {
      status
      count
      slaBreached
    }
  }
`;

export const WEBHOOKS = /* GraphQL */ `
  query DashboardWebhooks {
    webhookEndpoints {
      id
      url
      enabled
      deliveries(limit: 100) {
        id
        status
        attemptCount
        nextAttemptAt
        deliveredAt
        failedAt
        createdAt
        event {
          name
        }
      }
    }
  }
`;

export interface Figures {
  me: {
    tenant: { name: string };
    client: { name: string };
    actor: { name: string; role: string; ownRecordsOnly: boolean } | null;
    scopes: string[];
  };
  collectionsSummary: {
    date: string;
    count: number;
    amount: { amount: number };
    successRate: number | null;
    byHour: { hour: number; count: number; amount: { amount: number } }[];
    prompts: { status: string; resultCode: number | null; count: number }[];
  };
  policyCounts: { status: string; count: number }[];
  claimCounts: { status: string; count: number; slaBreached: number }[];
}

export interface Delivery {
  id: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  failedAt: string | null;
  createdAt: string;
  event: { name: string };
}

export interface Endpoint {
  id: string;
  url: string;
  enabled: boolean;
  deliveries: Delivery[];
}

/** The events the feed shows: the day so far from the history, then live from the subscription. */
export const FEED_EVENTS = [
  'payment.received',
  'policy.activated',
  'claim.moved',
  'certificate.issued',
  'certificate.failed',
  'certificate.cancelled',
] as const;

/** Today's events so far, newest first (the history read: GraphQL `events`). */
export const HISTORY = /* GraphQL */ `
  query DashboardHistory($since: DateTime!, $types: [String!], $first: Int) {
    events(since: $since, types: $types, first: $first) {
      edges {
        node {
          id
          name
          createdAt
          data
        }
      }
    }
  }
`;

/** The live feed: one subscription to the same events (what the caller may see of them). */
export const LIVE_FEED = `subscription DashboardLive($names: [String!]) {
  events(names: $names) { id name createdAt data }
}`;

export interface ServiceEvent {
  id: string;
  name: string;
  createdAt: string;
  data: Record<string, unknown> | null;
}

export type LiveKind = 'payment' | 'activation' | 'claim' | 'certificate' | 'webhook';

/** What a feed line or a tile opens in the detail panel. */
export type Target =
  | { kind: 'receipt'; receiptNo: string }
  | { kind: 'policy'; uuid: string }
  | { kind: 'claim'; uuid: string }
  | { kind: 'receipts-today' }
  | { kind: 'policies'; status: string }
  | { kind: 'claims'; status: string };

export interface FeedItem {
  id: string;
  kind: LiveKind;
  at: string;
  text: string;
  open?: Target;
}

const s = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

/** One event (from the history or the subscription: the same shape) as a line of the feed, with what it opens. */
export function eventItem(e: ServiceEvent): FeedItem | null {
  const d = e.data ?? {};
  const base = { id: e.id, at: e.createdAt };
  const policy = s(d.policy_uuid) ? ({ kind: 'policy', uuid: s(d.policy_uuid) } as const) : undefined;
  switch (e.name) {
    case 'payment.received':
      return {
        ...base,
        kind: 'payment',
        text: `KES ${Number(d.amount).toLocaleString('en-KE')} received, ${s(d.receipt_no)} for ${s(d.policy_no || d.account)}`,
        open: s(d.receipt_no) ? { kind: 'receipt', receiptNo: s(d.receipt_no) } : policy,
      };
    case 'policy.activated':
      return {
        ...base,
        kind: 'activation',
        text: `Policy ${s(d.policy_no)} active (client ${s(d.client_no)})`,
        open: policy,
      };
    case 'claim.moved':
      return {
        ...base,
        kind: 'claim',
        text: `Claim ${s(d.claim_no)} ${s(d.from)} → ${s(d.to)} (${s(d.policy_no)})`,
        open: s(d.claim_uuid) ? { kind: 'claim', uuid: s(d.claim_uuid) } : policy,
      };
    default:
      if (!e.name.startsWith('certificate.')) return null;
      return {
        ...base,
        kind: 'certificate',
        text: `${e.name.replace('certificate.', 'Certificate ')}: ${s(d.registration)} on ${s(d.policy_no)}`,
        open: policy,
      };
  }
}

// ---- the records behind a line or a tile (the API's own reads) ----------------------------------------------------

export interface Money {
  amount: number;
}

export const RECEIPT = /* GraphQL */ `
  query DashboardReceipt($receiptNo: String!) {
    receipt(receiptNo: $receiptNo) {
      receiptNo
      amount {
        amount
      }
      unallocated {
        amount
      }
      method
      transactionRef
      phone
      account
      purpose
      paidAt
      clientNo
      policyNo
      allocations {
        debitNoteNo
        amount {
          amount
        }
      }
    }
  }
`;
export interface ReceiptDetail {
  receiptNo: string;
  amount: Money;
  unallocated: Money;
  method: string;
  transactionRef: string;
  phone: string;
  account: string;
  purpose: string;
  paidAt: string;
  clientNo: string | null;
  policyNo: string | null;
  allocations: { debitNoteNo: string; amount: Money }[];
}

export const POLICY = /* GraphQL */ `
  query DashboardPolicy($uuid: String!) {
    policy(uuid: $uuid) {
      uuid
      policyNo
      status
      productLine
      startDate
      endDate
      client {
        name
        clientNo
      }
      insurer {
        name
      }
      total {
        amount
      }
      debitNotes {
        number
        dueOn
        amount {
          amount
        }
        outstanding {
          amount
        }
      }
      receipts {
        receiptNo
        paidAt
        amount {
          amount
        }
      }
      claims {
        uuid
        claimNo
        status
      }
      statusHistory {
        at
        fromStatus
        toStatus
        reason
      }
    }
  }
`;
export interface PolicyDetail {
  uuid: string;
  policyNo: string;
  status: string;
  productLine: string;
  startDate: string;
  endDate: string;
  client: { name: string; clientNo: string };
  insurer: { name: string };
  total: Money;
  debitNotes: { number: string; dueOn: string; amount: Money; outstanding: Money }[];
  receipts: { receiptNo: string; paidAt: string; amount: Money }[];
  claims: { uuid: string; claimNo: string; status: string }[];
  statusHistory: { at: string; fromStatus: string | null; toStatus: string; reason: string | null }[];
}

export const CLAIM = /* GraphQL */ `
  query DashboardClaim($uuid: String!) {
    claim(uuid: $uuid) {
      uuid
      claimNo
      status
      policyNo
      policyUuid
      clientName
      clientNo
      cause
      lossDate
      reportedAt
      slaBreached
      reserve {
        amount
      }
      paid {
        amount
      }
      history {
        at
        from
        to
        actorName
        reason
      }
    }
  }
`;
export interface ClaimDetail {
  uuid: string;
  claimNo: string;
  status: string;
  policyNo: string;
  policyUuid: string;
  clientName: string;
  clientNo: string;
  cause: string;
  lossDate: string;
  reportedAt: string;
  slaBreached: boolean;
  reserve: Money;
  paid: Money;
  history: { at: string; from: string | null; to: string; actorName: string | null; reason: string | null }[];
}

export const RECEIPTS = /* GraphQL */ `
  query DashboardReceipts {
    receipts(first: 100) {
      edges {
        node {
          receiptNo
          paidAt
          createdAt
          policyNo
          account
          amount {
            amount
          }
        }
      }
    }
  }
`;
export interface ReceiptRow {
  receiptNo: string;
  paidAt: string;
  createdAt: string;
  policyNo: string | null;
  account: string;
  amount: Money;
}

export const POLICIES = /* GraphQL */ `
  query DashboardPolicies($status: PolicyStatus) {
    policies(status: $status, first: 50) {
      edges {
        node {
          uuid
          policyNo
          startDate
          client {
            name
          }
          total {
            amount
          }
        }
      }
    }
  }
`;
export interface PolicyRow {
  uuid: string;
  policyNo: string;
  startDate: string;
  client: { name: string };
  total: Money;
}

export const CLAIMS = /* GraphQL */ `
  query DashboardClaims($status: [ClaimStatus!]) {
    claims(status: $status, first: 50) {
      edges {
        node {
          uuid
          claimNo
          clientName
          policyNo
          statusChangedAt
          slaBreached
        }
      }
    }
  }
`;
export interface ClaimRow {
  uuid: string;
  claimNo: string;
  clientName: string;
  policyNo: string;
  statusChangedAt: string;
  slaBreached: boolean;
}
