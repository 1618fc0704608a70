// Data, not logic: exempt from the ~300-line size rule for source files.
/**
 * Demo organisations and their reference data. Figures follow ../shared/notes/domain.md (levies, benefits,
 * limits); names of insurers and organisations are fictional.
 */
import type { CoverType, TenantStatus, TenantType, UserRole, VehicleClass } from '../generated/prisma/enums.ts';

export interface DemoUser {
  key: string;
  name: string;
  email: string;
  phone: string;
  role: UserRole;
  agentCode?: string;
  branch?: string;
}

export interface DemoInsurer {
  name: string;
  legalName: string;
  registryMemberId: number;
  commissionRateBps: number;
  monogram: string;
  classes: VehicleClass[];
}

export interface DemoTenant {
  role: 'brokerage' | 'agency' | 'sacco' | 'suspended' | 'sandbox';
  /** A sandbox organisation: its clock may be advanced (docs/operations.md "Sandbox clock"). */
  sandbox?: boolean;
  code: string;
  name: string;
  type: TenantType;
  status: TenantStatus;
  paybill: string;
  branches: { code: string; name: string; city: string }[];
  users: DemoUser[];
  /** API clients: name → scopes and the user (key) it acts as. */
  apiClients: Record<string, { scopes: string[]; actor: string; rateLimitPerMinute?: number }>;
  agents: string[];
  insurers: DemoInsurer[];
  customers: {
    name: string;
    phone: string;
    idNo: string;
    kraPin?: string;
    email?: string;
    salesPerson?: string;
    riskManager?: string;
    branch?: string;
  }[];
}

export const LEVIES = [
  {
    code: 'TL',
    name: 'Insurance training levy',
    basis: 'percent' as const,
    rateBps: 20,
    amountMinor: null,
    sortOrder: 1,
  },
  {
    code: 'PHCF',
    name: "Policyholders' Compensation Fund levy",
    basis: 'percent' as const,
    rateBps: 25,
    amountMinor: null,
    sortOrder: 2,
  },
  { code: 'SD', name: 'Stamp duty', basis: 'flat' as const, rateBps: null, amountMinor: 4_000n, sortOrder: 3 },
];

/** Benefit name → limit of liability in cents (null: unlimited or included). */
export const MOTOR_BENEFITS: { name: string; limitMinor: bigint | null; covers: CoverType[] }[] = [
  { name: 'Third party bodily injury', limitMinor: null, covers: ['comprehensive', 'tpo', 'tpft'] },
  { name: 'Third party property damage', limitMinor: 500_000_000n, covers: ['comprehensive', 'tpo', 'tpft'] },
  { name: 'Windscreen', limitMinor: 5_000_000n, covers: ['comprehensive'] },
  { name: 'Entertainment system', limitMinor: 5_000_000n, covers: ['comprehensive'] },
  { name: 'Towing and recovery', limitMinor: 5_000_000n, covers: ['comprehensive'] },
  { name: 'Medical expenses', limitMinor: 3_000_000n, covers: ['comprehensive'] },
  { name: 'Riot, strike and civil commotion', limitMinor: null, covers: ['comprehensive'] },
];

export const EXCESS_TEXT =
  'Own damage 2.5% of sum insured, minimum KES 15,000; theft 10% with an approved anti-theft device, 20% without, minimum KES 20,000; third party property damage KES 7,500.';

export const STANDARD_PRODUCTS = [
  {
    code: 'PA',
    name: 'Personal accident',
    description: 'Death, disability and medical expenses after an accident, 24 hours worldwide.',
    productLine: 'standard',
    brochureUrl: null,
  },
  {
    code: 'DOMESTIC',
    name: 'Domestic package',
    description: "Buildings, contents and all risks for the home, with owner's liability.",
    productLine: 'standard',
    brochureUrl: null,
  },
  {
    code: 'WIBA',
    name: 'Work injury benefits (WIBA)',
    description: "Employer's statutory cover for employees injured at work.",
    productLine: 'standard',
    brochureUrl: null,
  },
  {
    code: 'FIRE',
    name: 'Fire and perils',
    description: 'Fire, lightning and allied perils for business premises and stock.',
    productLine: 'standard',
    brochureUrl: null,
  },
  {
    code: 'GOLFER',
    name: "Golfer's cover",
    description: 'Equipment, personal accident, liability and the hole-in-one celebration.',
    productLine: 'standard',
    brochureUrl: null,
  },
];

export const BUSINESS_SOURCES = ['Walk-in', 'Referral', 'Bancassurance', 'Digital'];
export const PROSPECT_TYPES = [
  { code: 'hot', name: 'Hot lead' },
  { code: 'warm', name: 'Warm lead' },
  { code: 'cold', name: 'Cold lead' },
];

const PANEL: DemoInsurer[] = [
  {
    name: 'Simba General',
    legalName: 'Simba General Insurance Company Limited',
    registryMemberId: 101,
    commissionRateBps: 1000,
    monogram: 'SG',
    classes: ['private', 'commercial', 'psv', 'motorcycle'],
  },
  {
    name: 'Twiga Assurance',
    legalName: 'Twiga Assurance Kenya Limited',
    registryMemberId: 102,
    commissionRateBps: 1000,
    monogram: 'TA',
    classes: ['private', 'commercial', 'psv', 'motorcycle'],
  },
  {
    name: 'Kilima Insurance',
    legalName: 'Kilima Insurance Company Limited',
    registryMemberId: 103,
    commissionRateBps: 1250,
    monogram: 'KI',
    classes: ['private', 'commercial', 'motorcycle'],
  },
  {
    name: 'Baobab General',
    legalName: 'Baobab General Insurance Limited',
    registryMemberId: 104,
    commissionRateBps: 1000,
    monogram: 'BG',
    classes: ['private', 'commercial', 'psv'],
  },
  {
    name: 'Pwani Mutual',
    legalName: 'Pwani Mutual Assurance Limited',
    registryMemberId: 105,
    commissionRateBps: 1100,
    monogram: 'PM',
    classes: ['private', 'psv', 'motorcycle'],
  },
];

const user = (key: string, name: string, role: UserRole, n: number, extra: Partial<DemoUser> = {}): DemoUser => ({
  key,
  name,
  role,
  email: `${key}@example.co.ke`,
  phone: `2547${String(10_000_000 + n).slice(-8)}`,
  ...extra,
});

export const DEMO_TENANTS: DemoTenant[] = [
  {
    role: 'brokerage',
    code: 'savannah-brokers',
    name: 'Savannah Insurance Brokers Ltd',
    type: 'brokerage',
    status: 'active',
    paybill: '522533',
    branches: [
      { code: 'NBO', name: 'Nairobi CBD', city: 'Nairobi' },
      { code: 'MSA', name: 'Mombasa', city: 'Mombasa' },
      { code: 'KSM', name: 'Kisumu', city: 'Kisumu' },
    ],
    users: [
      user('savannah.admin', 'Achieng Otieno', 'admin', 1, { branch: 'NBO' }),
      user('savannah.wanjiku', 'Wanjiku Kamau', 'account_exec', 2, { branch: 'NBO' }),
      user('savannah.omondi', 'Brian Omondi', 'account_exec', 3, { branch: 'KSM' }),
      user('savannah.mutua', 'Faith Mutua', 'agent', 4, { agentCode: 'AG-0101', branch: 'NBO' }),
      user('savannah.hassan', 'Hassan Abdalla', 'agent', 5, { agentCode: 'AG-0102', branch: 'MSA' }),
      user('savannah.viewer', 'Grace Njeri', 'viewer', 6, { branch: 'NBO' }),
    ],
    apiClients: {
      staff: { scopes: ['read', 'quote', 'bind', 'crm', 'webhooks'], actor: 'savannah.wanjiku' },
      agent: { scopes: ['read', 'quote', 'bind', 'crm'], actor: 'savannah.mutua' },
      readonly: { scopes: ['read'], actor: 'savannah.viewer' },
      admin: { scopes: ['read', 'admin'], actor: 'savannah.admin' },
    },
    agents: ['savannah.mutua', 'savannah.hassan'],
    insurers: PANEL,
    customers: [
      {
        name: 'John Kariuki Mwangi',
        phone: '254722000101',
        idNo: '23456789',
        kraPin: 'A004416331M',
        email: 'john.kariuki@example.co.ke',
        salesPerson: 'savannah.mutua',
        riskManager: 'savannah.wanjiku',
        branch: 'NBO',
      },
      {
        name: 'Mary Atieno Odhiambo',
        phone: '254711000202',
        idNo: '28765432',
        kraPin: 'A005512347K',
        salesPerson: 'savannah.hassan',
        riskManager: 'savannah.omondi',
        branch: 'MSA',
      },
      {
        name: 'Peter Kiprono Rotich',
        phone: '254733000303',
        idNo: '31234567',
        riskManager: 'savannah.wanjiku',
        branch: 'NBO',
      },
    ],
  },
  {
    role: 'agency',
    code: 'pwani-agency',
    name: 'Pwani Cover Agency',
    type: 'agency',
    status: 'active',
    paybill: '600100',
    branches: [{ code: 'MSA', name: 'Mombasa Old Town', city: 'Mombasa' }],
    users: [
      user('pwani.admin', 'Zainab Said', 'admin', 11, { branch: 'MSA' }),
      user('pwani.exec', 'Ali Mwinyi', 'account_exec', 12, { branch: 'MSA' }),
      user('pwani.agent', 'Rehema Juma', 'agent', 13, { agentCode: 'PA-01', branch: 'MSA' }),
    ],
    apiClients: { staff: { scopes: ['read', 'quote', 'bind', 'crm', 'webhooks'], actor: 'pwani.exec' } },
    agents: ['pwani.agent'],
    insurers: PANEL.slice(0, 4),
    customers: [{ name: 'Omar Bakari', phone: '254720000404', idNo: '22334455' }],
  },
  {
    role: 'sacco',
    code: 'ukulima-sacco',
    name: 'Ukulima SACCO Society Ltd',
    type: 'sacco',
    status: 'active',
    paybill: '400200',
    branches: [{ code: 'NKR', name: 'Nakuru', city: 'Nakuru' }],
    users: [
      user('ukulima.admin', 'Samuel Kiptoo', 'admin', 21, { branch: 'NKR' }),
      user('ukulima.exec', 'Esther Chebet', 'account_exec', 22, { branch: 'NKR' }),
    ],
    apiClients: { staff: { scopes: ['read', 'quote', 'bind', 'crm', 'webhooks'], actor: 'ukulima.exec' } },
    agents: [],
    insurers: PANEL.slice(0, 3),
    customers: [{ name: 'Joseph Langat', phone: '254710000505', idNo: '25556677' }],
  },
  {
    role: 'suspended',
    code: 'lakeside-brokers',
    name: 'Lakeside Brokers Ltd',
    type: 'brokerage',
    status: 'suspended',
    paybill: '700300',
    branches: [{ code: 'KSM', name: 'Kisumu', city: 'Kisumu' }],
    users: [user('lakeside.exec', 'Dorothy Anyango', 'account_exec', 31, { branch: 'KSM' })],
    apiClients: { staff: { scopes: ['read', 'quote', 'bind', 'crm', 'webhooks'], actor: 'lakeside.exec' } },
    agents: [],
    insurers: PANEL.slice(0, 2),
    customers: [],
  },
  {
    role: 'sandbox',
    sandbox: true,
    code: 'savannah-sandbox',
    name: 'Savannah Brokers (sandbox)',
    type: 'brokerage',
    status: 'active',
    paybill: '522534',
    branches: [{ code: 'NBO', name: 'Nairobi CBD', city: 'Nairobi' }],
    users: [
      user('sandbox.admin', 'Amina Wafula', 'admin', 41, { branch: 'NBO' }),
      user('sandbox.exec', 'Kevin Otieno', 'account_exec', 42, { branch: 'NBO' }),
      user('sandbox.agent', 'Lucy Wairimu', 'agent', 43, { agentCode: 'SB-01', branch: 'NBO' }),
    ],
    apiClients: {
      staff: { scopes: ['read', 'quote', 'bind', 'crm', 'webhooks'], actor: 'sandbox.exec' },
      admin: { scopes: ['read', 'admin'], actor: 'sandbox.admin' },
    },
    agents: ['sandbox.agent'],
    insurers: PANEL.slice(0, 4),
    customers: [{ name: 'Test Customer Njoroge', phone: '254700000606', idNo: '20001234' }],
  },
];

const KES = (shillings: number) => BigInt(Math.round(shillings * 100));

export interface DemoRating {
  rateBands?: { upTo: number | null; bps: number }[];
  minPremium?: number;
  flatPremium?: number;
  tonnageBands?: { upToTonnes: number | null; premium: number }[];
}

/** Per insurer (by name) and rating class: comprehensive and TPO figures, whole shillings (domain.md ranges). */
export const MOTOR_RATING: Record<
  string,
  {
    maxInstalments: number;
    ipfEligible: boolean;
    maxAge: number;
    classes: Partial<Record<VehicleClass, { comprehensive: DemoRating; tpo: DemoRating }>>;
  }
> = {
  'Simba General': {
    maxInstalments: 4,
    ipfEligible: true,
    maxAge: 15,
    classes: {
      private: {
        comprehensive: {
          rateBands: [
            { upTo: 1_000_000, bps: 450 },
            { upTo: 2_000_000, bps: 350 },
            { upTo: null, bps: 300 },
          ],
          minPremium: 30_000,
        },
        tpo: { flatPremium: 5_000 },
      },
      commercial: {
        comprehensive: { rateBands: [{ upTo: null, bps: 450 }], minPremium: 35_000 },
        tpo: {
          tonnageBands: [
            { upToTonnes: 3, premium: 5_500 },
            { upToTonnes: 8, premium: 7_500 },
            { upToTonnes: 15, premium: 10_000 },
            { upToTonnes: null, premium: 12_000 },
          ],
        },
      },
      psv: {
        comprehensive: { rateBands: [{ upTo: null, bps: 500 }], minPremium: 35_000 },
        tpo: { flatPremium: 8_000 },
      },
      motorcycle: {
        comprehensive: { rateBands: [{ upTo: null, bps: 300 }], minPremium: 5_000 },
        tpo: { flatPremium: 2_000 },
      },
    },
  },
  'Twiga Assurance': {
    maxInstalments: 3,
    ipfEligible: true,
    maxAge: 15,
    classes: {
      private: {
        comprehensive: {
          rateBands: [
            { upTo: 1_000_000, bps: 400 },
            { upTo: 2_000_000, bps: 350 },
            { upTo: null, bps: 300 },
          ],
          minPremium: 27_500,
        },
        tpo: { flatPremium: 3_200 },
      },
      commercial: {
        comprehensive: { rateBands: [{ upTo: null, bps: 400 }], minPremium: 30_000 },
        tpo: {
          tonnageBands: [
            { upToTonnes: 3, premium: 6_000 },
            { upToTonnes: 8, premium: 8_000 },
            { upToTonnes: null, premium: 11_500 },
          ],
        },
      },
      psv: {
        comprehensive: { rateBands: [{ upTo: null, bps: 450 }], minPremium: 30_000 },
        tpo: { flatPremium: 7_500 },
      },
      motorcycle: {
        comprehensive: { rateBands: [{ upTo: null, bps: 350 }], minPremium: 6_000 },
        tpo: { flatPremium: 2_500 },
      },
    },
  },
  'Kilima Insurance': {
    maxInstalments: 2,
    ipfEligible: true,
    maxAge: 12,
    classes: {
      private: {
        comprehensive: {
          rateBands: [
            { upTo: 1_500_000, bps: 475 },
            { upTo: null, bps: 375 },
          ],
          minPremium: 35_000,
        },
        tpo: { flatPremium: 6_000 },
      },
      commercial: {
        comprehensive: { rateBands: [{ upTo: null, bps: 500 }], minPremium: 45_000 },
        tpo: {
          tonnageBands: [
            { upToTonnes: 5, premium: 6_500 },
            { upToTonnes: null, premium: 10_500 },
          ],
        },
      },
      motorcycle: {
        comprehensive: { rateBands: [{ upTo: null, bps: 325 }], minPremium: 5_500 },
        tpo: { flatPremium: 2_200 },
      },
    },
  },
  'Baobab General': {
    maxInstalments: 4,
    ipfEligible: true,
    maxAge: 20,
    classes: {
      private: {
        comprehensive: {
          rateBands: [
            { upTo: 1_000_000, bps: 500 },
            { upTo: 2_500_000, bps: 400 },
            { upTo: null, bps: 350 },
          ],
          minPremium: 37_500,
        },
        tpo: { flatPremium: 7_500 },
      },
      commercial: {
        comprehensive: { rateBands: [{ upTo: null, bps: 475 }], minPremium: 40_000 },
        tpo: {
          tonnageBands: [
            { upToTonnes: 3, premium: 5_000 },
            { upToTonnes: 8, premium: 7_000 },
            { upToTonnes: 15, premium: 9_500 },
            { upToTonnes: null, premium: 12_500 },
          ],
        },
      },
      psv: {
        comprehensive: { rateBands: [{ upTo: null, bps: 550 }], minPremium: 40_000 },
        tpo: { flatPremium: 9_000 },
      },
    },
  },
  'Pwani Mutual': {
    maxInstalments: 1,
    ipfEligible: false,
    maxAge: 10,
    classes: {
      private: {
        comprehensive: {
          rateBands: [
            { upTo: 1_000_000, bps: 425 },
            { upTo: null, bps: 275 },
          ],
          minPremium: 32_500,
        },
        tpo: { flatPremium: 4_500 },
      },
      psv: {
        comprehensive: { rateBands: [{ upTo: null, bps: 525 }], minPremium: 37_500 },
        tpo: { flatPremium: 8_500 },
      },
      motorcycle: {
        comprehensive: { rateBands: [{ upTo: null, bps: 400 }], minPremium: 7_500 },
        tpo: { flatPremium: 3_000 },
      },
    },
  },
};

export const PLL_PER_SEAT = KES(500);

/** Premium-finance lenders: flat charge per tenor (about 2.2 % for 4 months to 6.8 % for 10, domain.md). */
export const IPF_LENDERS = [
  {
    name: 'Mkopo Premium Finance',
    minPremium: 25_000,
    tenors: [
      { months: 4, chargeBps: 220 },
      { months: 6, chargeBps: 380 },
      { months: 10, chargeBps: 680 },
    ],
  },
  {
    name: 'Jamii Credit',
    minPremium: 30_000,
    tenors: [
      { months: 3, chargeBps: 190 },
      { months: 6, chargeBps: 400 },
    ],
  },
];

export { KES };
