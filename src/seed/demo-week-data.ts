/**
 * The brokerage's recent week (src/seed/demo-week.ts): who bought what, on which day of the last seven (0 is today,
 * 6 six days ago, Nairobi days), through whom, and what happened to it since. Data, not logic; the names, phones,
 * id numbers and registrations are fictional. Hours are Nairobi hours of their day; today's are minutes before the
 * seed runs instead (seed time is "now"), so nothing is dated in the future.
 */

/** Who acts: a staff user through the `staff` client, or one of the two demo agents (their own records). */
export type WeekActor = 'staff' | 'mutua' | 'hassan';

/** Today's steps happen less than this many minutes before the seed (`minutesAgo`). */
export const TODAY_SPAN_MINUTES = 100;

/**
 * When, on the week's clock: `day` days ago at `hour` (past days) or `minutesAgo` before the seed (today, below
 * TODAY_SPAN_MINUTES).
 */
export interface WeekWhen {
  day: number;
  hour?: number;
  minutesAgo?: number;
}

export interface WeekPolicy {
  key: string;
  by: WeekActor;
  bound: WeekWhen;
  /** An existing demo customer (by client number), or a new client. */
  client: { clientNo: string } | { name: string; phone: string; idNo: string; email?: string };
  insurer: string;
  coverage: 'Private' | 'Motorcycle' | 'PSV';
  scope: 'Comprehensive' | 'TPO';
  vehicle: { regNo: string; chassisNo: string; make: string; model: string; yom: number; value?: number };
  instalments?: number;
  /** Instalments paid by STK push to the policy number (first first), each when given; none: pending payment. */
  paid?: WeekWhen[];
  /** A change of the vehicle's value (shillings) endorsed then, and its extra premium paid. */
  endorsed?: { at: WeekWhen; value: number; paid?: WeekWhen };
  cancelled?: { at: WeekWhen; reason: 'vehicle_sold' | 'insured_request' };
  claim?: WeekClaim;
  /** Bound with payment_mode ipf: the premium is paid by a premium-finance loan (no `paid`: the lender pays it). */
  financed?: WeekLoan;
}

/** A premium-finance loan's story (docs/premium-finance.md), each step when given, by the policy's actor. */
export interface WeekLoan {
  lender: string;
  months: number;
  /** The applicant's KYC beside the client's ID number: KRA PIN and declared income band. */
  kraPin: string;
  incomeBand: string;
  /** Applied for and submitted to the lender. */
  applied: WeekWhen;
  /** The lender's decision comes in (the ipf.decide job). */
  decided: WeekWhen;
  /** The signing code is sent to the client's phone and the client reads it out: signed, the loan awaits its deposit. */
  signed: WeekWhen;
  /** The deposit paid by STK push (ipf_repayment), then the lender's disbursement pays the insurer (ipf.disburse). */
  deposit: WeekWhen;
  /** Later payments to the loan, each what its oldest line still owes (rounded up to the shilling). */
  repaid?: WeekWhen[];
}

export interface WeekClaim {
  by: WeekActor;
  reported: WeekWhen;
  /** The loss, days before it was reported. */
  lossDaysBefore: number;
  cause: 'accident' | 'windscreen' | 'theft';
  place: string;
  description: string;
  estimatedLoss: number;
  /** Carried through the checklist (waived on paper), assessment and approval by the claims desk. */
  approved?: { at: WeekWhen; assessor: string; amount: number };
}

const c = (name: string, phone: string, idNo: string) => ({ name, phone, idNo });

export const WEEK: WeekPolicy[] = [
  {
    key: 'kariuki',
    by: 'mutua',
    bound: { day: 6, hour: 9 },
    client: { clientNo: 'C-000001' },
    insurer: 'Simba General',
    coverage: 'Private',
    scope: 'Comprehensive',
    vehicle: { regNo: 'KDG 214K', chassisNo: 'NZE161-3021144', make: 'Toyota', model: 'Fielder', yom: 2020 },
    paid: [{ day: 6, hour: 10 }],
    endorsed: { at: { day: 3, hour: 11 }, value: 1_800_000, paid: { day: 2, hour: 15 } },
  },
  {
    key: 'atieno',
    by: 'hassan',
    bound: { day: 6, hour: 11 },
    client: { clientNo: 'C-000002' },
    insurer: 'Twiga Assurance',
    coverage: 'Private',
    scope: 'Comprehensive',
    vehicle: {
      regNo: 'KDC 518M',
      chassisNo: 'GP7-1043388',
      make: 'Subaru',
      model: 'Impreza',
      yom: 2019,
      value: 1_200_000,
    },
    paid: [{ day: 5, hour: 9 }],
    claim: {
      by: 'hassan',
      reported: { day: 1, hour: 16 },
      lossDaysBefore: 1,
      cause: 'windscreen',
      place: 'Nyali Bridge, Mombasa',
      description: 'Windscreen cracked by a stone thrown up by a lorry',
      estimatedLoss: 38_000,
    },
  },
  {
    key: 'boda',
    by: 'staff',
    bound: { day: 5, hour: 14 },
    client: c('Kevin Ouma Onyango', '254721400111', '33120045'),
    insurer: 'Simba General',
    coverage: 'Motorcycle',
    scope: 'TPO',
    vehicle: { regNo: 'KMFD 381C', chassisNo: 'LBPKE1300K0117342', make: 'Bajaj', model: 'Boxer 150', yom: 2022 },
    paid: [{ day: 5, hour: 15 }],
  },
  {
    key: 'chebet',
    by: 'staff',
    bound: { day: 5, hour: 10 },
    client: c('Caroline Chebet Kirui', '254722400222', '29877310'),
    insurer: 'Kilima Insurance',
    coverage: 'Private',
    scope: 'Comprehensive',
    vehicle: {
      regNo: 'KDA 907P',
      chassisNo: 'ZRE142-5112093',
      make: 'Toyota',
      model: 'Axio',
      yom: 2019,
      value: 1_300_000,
    },
    instalments: 2,
    paid: [{ day: 5, hour: 12 }],
  },
  {
    key: 'owino',
    by: 'staff',
    bound: { day: 6, hour: 10 },
    client: c('Peter Odhiambo Owino', '254711401111', '29004417'),
    insurer: 'Twiga Assurance',
    coverage: 'Private',
    scope: 'Comprehensive',
    vehicle: {
      regNo: 'KDD 450L',
      chassisNo: 'ZSU60-0098231',
      make: 'Toyota',
      model: 'Harrier',
      yom: 2019,
      value: 2_400_000,
    },
    financed: {
      lender: 'Mkopo Premium Finance',
      months: 6,
      kraPin: 'A009876543P',
      incomeBand: '100k_250k',
      applied: { day: 6, hour: 10 },
      decided: { day: 6, hour: 14 },
      signed: { day: 5, hour: 9 },
      deposit: { day: 5, hour: 10 },
      // The first monthly instalment, paid early (it falls due a month after signing).
      repaid: [{ day: 1, hour: 17 }],
    },
  },
  {
    key: 'njoroge',
    by: 'mutua',
    bound: { day: 4, hour: 9 },
    client: c('Samuel Njoroge Mwangi', '254723400333', '27654098'),
    insurer: 'Simba General',
    coverage: 'Private',
    scope: 'Comprehensive',
    vehicle: {
      regNo: 'KDE 662T',
      chassisNo: 'NHP10-6645120',
      make: 'Toyota',
      model: 'Aqua',
      yom: 2018,
      value: 1_100_000,
    },
    paid: [{ day: 4, hour: 11 }],
    claim: {
      by: 'mutua',
      reported: { day: 3, hour: 10 },
      lossDaysBefore: 0,
      cause: 'accident',
      place: 'Thika Road, near Garden City',
      description: 'Rear-ended in slow traffic; boot lid and rear bumper damaged',
      estimatedLoss: 140_000,
      approved: { at: { day: 1, hour: 12 }, assessor: 'Kilimo Motor Assessors', amount: 120_000 },
    },
  },
  {
    key: 'wafula',
    by: 'staff',
    bound: { day: 4, hour: 13 },
    client: c('Lydia Nafula Wafula', '254724400444', '30998712'),
    insurer: 'Pwani Mutual',
    coverage: 'Private',
    scope: 'Comprehensive',
    vehicle: {
      regNo: 'KDB 145R',
      chassisNo: 'NCP120-1029934',
      make: 'Toyota',
      model: 'Ractis',
      yom: 2018,
      value: 900_000,
    },
    paid: [{ day: 4, hour: 14 }],
    cancelled: { at: { day: 1, hour: 10 }, reason: 'vehicle_sold' },
  },
  {
    key: 'matatu',
    by: 'hassan',
    bound: { day: 3, hour: 8 },
    client: c('Juma Mohamed Said', '254725400555', '24410987'),
    insurer: 'Twiga Assurance',
    coverage: 'PSV',
    scope: 'TPO',
    vehicle: { regNo: 'KCX 730B', chassisNo: 'TRH223-0066712', make: 'Toyota', model: 'Hiace', yom: 2017 },
    paid: [{ day: 3, hour: 9 }],
  },
  {
    key: 'akinyi',
    by: 'mutua',
    bound: { day: 2, hour: 16 },
    client: c('Beatrice Akinyi Ochieng', '254726400666', '32107765'),
    insurer: 'Baobab General',
    coverage: 'Private',
    scope: 'Comprehensive',
    vehicle: {
      regNo: 'KDF 288Y',
      chassisNo: 'J10-0458831',
      make: 'Nissan',
      model: 'X-Trail',
      yom: 2019,
      value: 2_100_000,
    },
  },
  {
    key: 'kamau',
    by: 'staff',
    bound: { day: 1, hour: 11 },
    client: c('Daniel Kamau Githinji', '254727400777', '26543201'),
    insurer: 'Twiga Assurance',
    coverage: 'Private',
    scope: 'TPO',
    vehicle: { regNo: 'KCY 491E', chassisNo: 'CE121-0087216', make: 'Toyota', model: 'Probox', yom: 2016 },
    paid: [{ day: 0, minutesAgo: 95 }],
  },
  {
    key: 'mwende',
    by: 'hassan',
    bound: { day: 0, minutesAgo: 80 },
    client: c('Esther Mwende Musyoka', '254728400888', '31876540'),
    insurer: 'Baobab General',
    coverage: 'Private',
    scope: 'Comprehensive',
    vehicle: {
      regNo: 'KDH 034A',
      chassisNo: 'KGC30-0123377',
      make: 'Toyota',
      model: 'Passo',
      yom: 2021,
      value: 950_000,
    },
    paid: [{ day: 0, minutesAgo: 60 }],
  },
  {
    key: 'kiprop',
    by: 'mutua',
    bound: { day: 0, minutesAgo: 50 },
    client: c('Victor Kiprop Korir', '254729400999', '35001287'),
    insurer: 'Simba General',
    coverage: 'Motorcycle',
    scope: 'Comprehensive',
    vehicle: {
      regNo: 'KMGA 122D',
      chassisNo: 'ME4KC2110M8004417',
      make: 'Honda',
      model: 'CB150',
      yom: 2023,
      value: 240_000,
    },
    paid: [{ day: 0, minutesAgo: 30 }],
  },
  {
    key: 'wambui',
    by: 'staff',
    bound: { day: 0, minutesAgo: 20 },
    client: c('Ann Wambui Ndirangu', '254710401010', '28330914'),
    insurer: 'Kilima Insurance',
    coverage: 'Private',
    scope: 'Comprehensive',
    vehicle: {
      regNo: 'KDJ 775F',
      chassisNo: 'ZWR80-0213456',
      make: 'Toyota',
      model: 'Voxy',
      yom: 2020,
      value: 2_600_000,
    },
  },
];
