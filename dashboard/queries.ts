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

/** The live subscriptions: each becomes a line of the feed. */
export const LIVE = {
  payment: `subscription { paymentReceived { eventId createdAt policyNo receiptNo data } }`,
  activation: `subscription { policyActivated { eventId createdAt policyNo clientNo } }`,
  claim: `subscription { claimMoved { eventId createdAt claimNo policyNo from to } }`,
  certificate: `subscription {
    events(names: ["certificate.issued", "certificate.failed", "certificate.cancelled"]) { id name createdAt data }
  }`,
} as const;

export type LiveKind = keyof typeof LIVE | 'webhook';

export interface FeedItem {
  id: string;
  kind: LiveKind;
  at: string;
  text: string;
}

type Row = Record<string, unknown> & { data?: Record<string, unknown> };
const s = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

/** One subscription payload as a line of the feed. */
export function feedItem(kind: keyof typeof LIVE, row: Row): FeedItem {
  const d = row.data ?? {};
  const id = s(row.eventId ?? row.id);
  const at = s(row.createdAt);
  switch (kind) {
    case 'payment':
      return {
        id,
        kind,
        at,
        text: `KES ${Number(d.amount).toLocaleString('en-KE')} received, ${s(row.receiptNo)} for ${s(row.policyNo || d.account)}`,
      };
    case 'activation':
      return { id, kind, at, text: `Policy ${s(row.policyNo)} active (client ${s(row.clientNo)})` };
    case 'claim':
      return { id, kind, at, text: `Claim ${s(row.claimNo)} ${s(row.from)} → ${s(row.to)} (${s(row.policyNo)})` };
    case 'certificate':
      return {
        id,
        kind,
        at,
        text: `${s(row.name).replace('certificate.', 'Certificate ')}: ${s(d.registration)} on ${s(d.policy_no)}`,
      };
  }
}
