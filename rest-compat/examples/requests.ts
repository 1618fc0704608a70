/**
 * The request example of every operation of the route table that takes a body or query parameters (by operationId):
 * a realistic Kenyan case that the running API accepts. test/openapi-request-examples.test.ts sends each one to a
 * fresh organisation and expects it to be accepted; the same run with CAPTURE_EXAMPLES=1 (`npm run capture:examples`)
 * records each success answer in responses.json, which the document shows as the response example.
 *
 * Two things a static document cannot hold are marked, and only they are replaced when an example is sent:
 * - `refs`: a value naming a record of the caller's organisation (an insurer's id, a client number, a user): the
 *   example shows the demo's own value; a sender puts its organisation's in its place.
 * - `fromToday`: a date that must be today or later (a trip's departure, a follow-up): the example shows a date; a
 *   sender puts today plus the given number of days there.
 */

/** What a `refs` entry names (see the fixtures of test/openapi-request-examples.test.ts). */
export type ExampleRef =
  | `insurer:${string}`
  | `lender:${string}`
  | 'client_no'
  | 'policy_uuid'
  | 'ipf_policy_uuid'
  | 'renewal_quote_uuid'
  | 'renewal_total'
  | 'debit_note_no'
  | 'branch_id'
  | 'risk_manager_id'
  | 'sales_person_id'
  | 'user_id'
  | 'certificate_no'
  | 'vehicle_regno'
  | 'client_phone'
  | 'otp_code';

export interface RequestExample {
  /** The JSON body (or the multipart form's text parts; `file` is sent as a small PDF). */
  body?: Record<string, unknown>;
  query?: Record<string, string | number | boolean>;
  /** Dotted path in `body` (or `query.<name>`) → the organisation's record it names. */
  refs?: Record<string, ExampleRef>;
  /** Dotted path in `body` (or `query.<name>`) → days after today: a date that must not be in the past. */
  fromToday?: Record<string, number>;
}

const CLIENT = {
  name: 'Wanjiru Kamau',
  phone: '0712 345 678',
  email: 'wanjiru.kamau@gmail.com',
  idno: '28456731',
  pin: 'A004567321K',
};

const ACHIENG = {
  name: 'Achieng Otieno',
  phone: '0720 661 204',
  email: 'achieng.otieno@gmail.com',
  idno: '25981234',
  pin: 'A007711223P',
};
const MWANGI = {
  name: 'Mwangi Njoroge',
  phone: '0711 204 380',
  email: 'mwangi.njoroge@yahoo.com',
  idno: '22145890',
  pin: 'A003322110N',
};
const FATUMA = {
  name: 'Fatuma Hassan Ali',
  phone: '0725 330 418',
  email: 'fatuma.ali@gmail.com',
  idno: '27713390',
  pin: 'A005566778H',
};

const MEDICAL = {
  cover_type: 'family',
  inpatient_limit: 1_000_000,
  riders: [{ code: 'outpatient', limit: 100_000 }],
  members: [
    { name: 'Achieng Otieno', relationship: 'principal', date_of_birth: '1987-04-12', id_no: '25981234' },
    { name: 'Brian Otieno', relationship: 'spouse', date_of_birth: '1985-11-03', id_no: '24870012' },
    { name: 'Zawadi Otieno', relationship: 'child', date_of_birth: '2016-08-21', in_school: true },
  ],
};

const TRIP = {
  plan: 'STANDARD',
  region: 'schengen',
  destination: 'France, Italy',
  departure_date: '2027-05-10',
  return_date: '2027-05-23',
  travellers: [
    { name: 'Mwangi Njoroge', date_of_birth: '1979-02-14', age: 47, passport_no: 'AK0456123' },
    { name: 'Njeri Njoroge', date_of_birth: '1982-06-30', age: 44, passport_no: 'AK0456124' },
  ],
};
const TRIP_DATES = { departure_date: 25, return_date: 38 };

const DOMESTIC = {
  product: 'DOMESTIC',
  items: [
    { description: 'Household contents, Kilimani flat', sum_insured: 1_500_000 },
    { description: 'Laptop and phones (all risks)', sum_insured: 300_000 },
  ],
};

const ERP_QUERY = { per_page: 100, updated_since: '2026-06-01T00:00:00+03:00' };

export const REQUEST_EXAMPLES: Record<string, RequestExample> = {
  // ---- reference and identity
  listInsurers: { query: { search: 'Simba' } },

  // ---- API clients (service-only)
  createApiClient: {
    body: { name: 'Savannah mobile app', scopes: ['read', 'quote', 'bind'], rate_limit_per_minute: 120 },
  },
  updateApiClient: { body: { name: 'Savannah mobile app (v2)', rate_limit_per_minute: 240 } },
  rotateApiClientSecret: { body: { grace_hours: 24 } },

  // ---- clients
  listClients: { query: { search: 'Kamau', type: 'individual', per_page: 20 } },
  createClient: {
    body: {
      type: 'individual',
      name: 'Otieno Ochieng Omondi',
      phone: '0722 418 903',
      email: 'otieno.omondi@yahoo.com',
      id_no: '31245678',
      kra_pin: 'A012345678Z',
      date_of_birth: '1984-09-17',
      physical_address: 'Nyali Road, Mombasa',
      sector: 'Transport',
    },
  },
  updateClient: {
    body: {
      name: 'Otieno Ochieng Omondi',
      phone: '0722 418 903',
      email: 'o.omondi@outlook.com',
      physical_address: 'Links Road, Nyali, Mombasa',
    },
  },

  // ---- motor
  motorQuote: {
    body: {
      class: 'Motor',
      coverage: 'Private',
      scope: 'Comprehensive',
      cover_period: 'annual',
      year: 2021,
      value: 1_850_000,
    },
  },
  saveMotorQuote: {
    body: {
      client: CLIENT,
      vehicle: {
        reg_no: 'KDJ 214M',
        make: 'Toyota',
        model: 'Fielder',
        class: 'Motor',
        coverage: 'Private',
        scope: 'Comprehensive',
        year: 2021,
        value: 1_850_000,
      },
    },
  },
  saveMotorPolicy: {
    body: {
      client: {
        name: 'Kevin Mutua Musyoka',
        phone: '0733 902 115',
        email: 'kevin.mutua@gmail.com',
        idno: '29874561',
        pin: 'A009876543M',
      },
      policy: {
        start_date: '2026-06-15',
        insurer_id: 1,
        class: 'Motor',
        coverage: 'Private',
        scope: 'Comprehensive',
        cover_period: 'annual',
        premium: 65_081,
        premium_instalments: 1,
      },
      vehicles: [
        {
          regno: 'KDH 507Q',
          chassis_no: 'NZE161-7045821',
          engine_no: '1NZ-4458120',
          make: 'Toyota',
          model: 'Axio',
          body_type: 'Saloon',
          yom: 2021,
          value: 1_850_000,
        },
      ],
    },
    refs: { 'policy.insurer_id': 'insurer:Simba General' },
  },

  // ---- medical, travel, standard
  medicalQuote: { body: MEDICAL },
  saveMedicalQuote: {
    body: { client: ACHIENG, medical: MEDICAL },
  },
  saveMedicalPolicy: {
    body: {
      client: ACHIENG,
      policy: { start_date: '2026-06-15', insurer_id: 1, premium: 84_137, premium_instalments: 1 },
      medical: MEDICAL,
    },
    refs: { 'policy.insurer_id': 'insurer:Simba General' },
  },
  travelQuote: { body: TRIP, fromToday: TRIP_DATES },
  saveTravelQuote: {
    body: { client: MWANGI, trip: TRIP },
    fromToday: { 'trip.departure_date': 25, 'trip.return_date': 38 },
  },
  saveTravelPolicy: {
    body: {
      client: MWANGI,
      policy: { insurer_id: 1, premium: 6_067 },
      trip: TRIP,
    },
    refs: { 'policy.insurer_id': 'insurer:Simba General' },
    fromToday: { 'trip.departure_date': 25, 'trip.return_date': 38 },
  },
  standardQuote: { body: DOMESTIC },
  saveStandardQuote: {
    body: { client: FATUMA, cover: DOMESTIC },
  },
  saveStandardPolicy: {
    body: {
      client: FATUMA,
      policy: { start_date: '2026-06-15', insurer_id: 1, premium: 6_368 },
      cover: DOMESTIC,
    },
    refs: { 'policy.insurer_id': 'insurer:Simba General' },
  },

  // ---- policies, renewals, endorsements, cancellations, certificates
  listPolicies: { query: { status: 'active', product_line: 'motor', start_from: '2026-01-01', per_page: 20 } },
  listRenewalsDue: { query: { within_days: 30, limit: 20 } },
  quoteRenewal: {
    body: { vehicles: [{ regno: 'KDH 507Q', value: 1_700_000 }] },
    refs: { 'vehicles.0.regno': 'vehicle_regno' },
  },
  renewPolicy: {
    body: { renewal_quote_uuid: '5d2f8a61-3c47-4e0b-9a1d-7b6e2c9f0a34', premium: 70_506, premium_instalments: 1 },
    refs: { renewal_quote_uuid: 'renewal_quote_uuid', premium: 'renewal_total' },
  },
  endorsePolicy: {
    body: {
      operation: 'change_details',
      regno: 'KDH 507Q',
      details: { engine_no: '1NZ-4458120', body_type: 'Saloon', make: 'Toyota', model: 'Axio' },
    },
    refs: { regno: 'vehicle_regno' },
  },
  previewCancellation: {
    body: { reason: 'vehicle_sold', requested_by: 'insured', note: 'Vehicle sold to a dealer in Nakuru' },
  },
  reinstatePolicy: { body: { note: 'Sale fell through; the client keeps the vehicle' } },
  checkCertificate: { query: { regno: 'KDH 507Q' }, refs: { 'query.regno': 'vehicle_regno' } },
  cancelCertificate: { body: { reason_id: 15 } },

  // ---- webhooks
  createWebhookEndpoint: {
    body: {
      url: 'https://hooks.savannahbrokers.co.ke/bima',
      events: ['policy.activated', 'payment.received'],
      description: 'Core system: policy and payment updates',
    },
  },
  updateWebhookEndpoint: { body: { events: ['*'], description: 'Core system: every event' } },
  rotateWebhookSecret: { body: { grace_hours: 24 } },
  sendTestWebhook: { body: { message: 'Checking the Savannah core system receiver' } },
  listWebhookDeliveries: { query: { limit: 20 } },
  listEvents: { query: { since: '2026-11-28T00:00:00+03:00', types: 'payment.received,policy.activated', limit: 20 } },

  // ---- payments
  stkPush: {
    body: { phone: '0712 345 678', amount: 76_322, account: 'MTR-2026-000123', purpose: 'premium' },
    refs: { account: 'debit_note_no' },
  },
  listReceipts: { query: { client_no: 'C-000123', limit: 20 }, refs: { 'query.client_no': 'client_no' } },

  // ---- prospects
  listProspects: { query: { status: 'new', interest: 'motor', search: 'Chebet', limit: 20 } },
  listProspectFollowUps: { query: { limit: 20 } },
  createProspect: {
    body: {
      type: 'individual',
      name: 'Chebet Jepkorir',
      phone: '0724 553 017',
      email: 'chebet.jepkorir@gmail.com',
      source: 'referral',
      interests: ['motor', 'medical'],
      estimated_premium: 85_000,
      next_follow_up_on: '2027-05-03',
      note: 'Referred by Wanjiru Kamau; new Mazda CX-5, wants comprehensive cover',
    },
    fromToday: { next_follow_up_on: 7 },
  },
  updateProspect: { body: { status: 'contacted', note: 'Called; sending a quote on Friday' } },
  addProspectNote: {
    body: { body: 'Asked for a quote with Simba General and Twiga Assurance; prefers to pay by M-Pesa' },
  },
  convertProspect: { body: { id_no: '30145876', kra_pin: 'A011223344B', physical_address: 'Eldoret, Uasin Gishu' } },

  // ---- claims
  listClaimCauses: { query: { product_line: 'motor' } },
  listClaims: { query: { status: 'registered', loss_from: '2026-01-01', limit: 20 } },
  registerClaim: {
    body: {
      policy_uuid: '8c1e4b7a-2f3d-4a6e-9b0c-5d7f1e2a3b4c',
      registration: 'KDH 507Q',
      cause: 'accident',
      loss_date: '2026-06-14',
      loss_time: '07:45',
      loss_place: 'Thika Road, near Roysambu',
      description: 'Rear-ended by a matatu in morning traffic; rear bumper and tail lights damaged',
      third_parties: [
        { name: 'Juma Mwalimu', phone: '254722001122', registration: 'KCY 881T', insurer: 'Kilima Insurance' },
      ],
      police_abstract_no: 'OB 23/14/06/2026 Kasarani',
      estimated_loss: 85_000,
    },
    refs: { policy_uuid: 'policy_uuid', registration: 'vehicle_regno' },
    fromToday: { loss_date: 0 },
  },
  updateClaim: { body: { police_abstract_no: 'OB 23/14/06/2026 Kasarani' } },
  moveClaim: { body: { to: 'documents_pending', reason: 'Waiting for the police abstract and the repair estimate' } },
  adjustClaimReserve: { body: { amount: 95_000, reason: 'Garage estimate from Kenya Auto Bazaar, Ngong Road' } },
  appointClaimAssessor: { body: { name: 'Daniel Kiptoo', phone: '0722 908 114', firm: 'Regent Loss Assessors' } },
  recordClaimAssessment: {
    body: { assessed_amount: 92_000, salvage: 3_000, notes: 'Bumper, tail lights and boot lid; repairable' },
  },
  approveClaim: { body: { approved_amount: 90_000, reason: 'Assessed repair cost less salvage' } },
  repudiateClaim: { body: { reason: 'late_notification', note: 'Reported 45 days after the loss' } },
  reopenClaim: { body: { reason: 'The insured produced the police abstract late', reserve: 60_000 } },
  uploadClaimDocument: { body: { kind: 'police_abstract' } },
  markClaimDocument: { body: { status: 'received', note: 'Original seen at the Nairobi CBD branch' } },
  payClaim: {
    body: {
      amount: 45_000,
      method: 'mpesa_b2c',
      payee_type: 'garage',
      payee_name: 'Kenya Auto Bazaar Ltd',
      phone: '0722 610 448',
      note: 'First part of the repair bill',
    },
  },

  // ---- SMS
  sendSms: {
    body: {
      to: ['0712 345 678'],
      message: 'Dear Wanjiru, your motor policy MTR-2026-000123 renews on 15 July. Reply or call 0709 000 000.',
    },
  },
  listSms: { query: { status: 'delivered', from_date: '2026-06-01', limit: 20 } },
  getSmsBalance: { query: { ledger: 10 } },
  topUpSms: { body: { units: 5_000, reference: 'INV-AT-2026-00418' } },
  createSmsSenderId: { body: { sender_id: 'SAVANNAH' } },
  updateSmsSenderId: { body: { status: 'registered' } },
  saveSmsTemplate: {
    body: {
      code: 'renewal_reminder',
      body: 'Dear {{name}}, your policy {{policy_no}} with {{org}} expires on {{end_date}}. Call us to renew.',
      active: true,
    },
  },

  // ---- premium finance
  ipfQuote: { body: { premium: 65_081, tenor_months: 6 } },
  listIpfLoans: { query: { status: 'active', in_arrears: false, limit: 20 } },
  listIpfApplications: { query: { status: 'submitted', limit: 20 } },
  createIpfApplication: {
    body: {
      policy_uuid: '3b9d2c71-6e4f-4a8b-8c1d-0f2e5a7b9c3d',
      lender_id: 1,
      tenor_months: 4,
      id_number: '29874561',
      kra_pin: 'A009876543M',
      income_band: '100k_250k',
      consent: true,
    },
    refs: { policy_uuid: 'ipf_policy_uuid', lender_id: 'lender:Mkopo Premium Finance' },
  },
  cancelIpfApplication: { body: { reason: 'The client will pay in full by M-Pesa' } },
  signIpfApplication: { body: { code: '482913' }, refs: { code: 'otp_code' } },
  earlySettlement: { body: { confirm: false } },

  // ---- ERP exports
  exportErpClients: { query: ERP_QUERY },
  exportErpPolicies: { query: ERP_QUERY },
  exportErpClaims: { query: ERP_QUERY },
  exportErpReceipts: { query: ERP_QUERY },
  exportErpCreditNotes: { query: ERP_QUERY },

  // ---- sandbox
  advanceSandboxClock: { body: { days: 30 } },

  // ---- client area
  requestClientOtp: { body: { phone: '0712 345 678', purpose: 'signin', customer_ip: '41.90.64.12' } },
  verifyClientOtp: { body: { phone: '0712 345 678', code: '482913' }, refs: { code: 'otp_code' } },
  registerClientAreaClient: {
    body: {
      name: 'Halima Abdi Noor',
      phone: '0745 210 377',
      code: '482913',
      id_no: '33104578',
      email: 'halima.noor@gmail.com',
      physical_address: 'Eastleigh, Nairobi',
    },
    refs: { code: 'otp_code' },
  },
  updateViewerContact: { body: { email: 'wanjiru.kamau@outlook.com', physical_address: 'Kileleshwa, Nairobi' } },
  getViewerStatement: { query: { format: 'json' } },
  viewerPay: { body: { debit_note_no: 'DN-MTR-2026-000123-1/1' }, refs: { debit_note_no: 'debit_note_no' } },
  viewerRegisterClaim: {
    body: {
      policy_uuid: '8c1e4b7a-2f3d-4a6e-9b0c-5d7f1e2a3b4c',
      registration: 'KDH 507Q',
      cause: 'windscreen',
      loss_date: '2026-06-14',
      loss_place: 'Mombasa Road, near Capital Centre',
      description: 'A stone from a lorry cracked the windscreen',
      estimated_loss_minor: 3_500_000,
    },
    refs: { policy_uuid: 'policy_uuid', registration: 'vehicle_regno' },
    fromToday: { loss_date: 0 },
  },
};
