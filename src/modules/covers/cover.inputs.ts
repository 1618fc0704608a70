import { builder } from '../../graphql/builder.ts';

/** GraphQL inputs of the non-motor lines: the same fields the REST bodies carry (covers/<line>/<line>.ts). */

const MedicalMemberInput = builder.inputType('MedicalMemberInput', {
  description: 'A person to cover under medical cover (family member or group employee).',
  fields: (t) => ({
    name: t.string({ description: 'Required to bind' }),
    relationship: t.string({ description: 'principal, spouse or child (family); employee, spouse or child (group)' }),
    dateOfBirth: t.string({ description: 'Y-m-d; or age' }),
    age: t.int({ description: 'Whole years, when no date of birth is given' }),
    inSchool: t.boolean({ description: 'A child in full-time education (covered to a higher age)' }),
    idNo: t.string({ description: 'National ID, passport or birth certificate number' }),
  }),
});

const MedicalRiderInput = builder.inputType('MedicalRiderInput', {
  description: 'An optional benefit added to inpatient cover, at one of its limit bands.',
  fields: (t) => ({
    code: t.string({ required: true, description: 'outpatient, maternity, dental or optical' }),
    limit: t.float({ required: true, description: "Whole shillings: one of the rider's limit bands" }),
  }),
});

export const MedicalCoverInput = builder.inputType('MedicalCoverInput', {
  description: 'A medical risk to price: cover type, inpatient limit, riders and members.',
  fields: (t) => ({
    coverType: t.string({ description: 'family (default) or group' }),
    inpatientLimit: t.float({ required: true, description: 'Whole shillings: one of the inpatient limit bands' }),
    riders: t.field({ type: [MedicalRiderInput], description: 'Optional riders; none when absent.' }),
    members: t.field({
      type: [MedicalMemberInput],
      required: true,
      description: 'The people covered: a family has exactly one principal; a group lists an employee first.',
    }),
    startDate: t.string({ description: 'Y-m-d; a past date starts today (a bind takes policy.startDate)' }),
    insurerIds: t.intList({
      description: 'Limit to these insurers; null or an empty list: every insurer on the panel',
    }),
  }),
});

const TravellerInput = builder.inputType('TravellerInput', {
  description: 'A person travelling, covered for the trip.',
  fields: (t) => ({
    name: t.string({ description: 'Required to bind' }),
    dateOfBirth: t.string({ description: 'Y-m-d; or age' }),
    age: t.int({ description: 'Whole years, when no date of birth is given' }),
    passportNo: t.string({ description: "The traveller's passport number." }),
  }),
});

export const TripInput = builder.inputType('TripInput', {
  description: 'A single trip to price: plan, region, dates and travellers.',
  fields: (t) => ({
    plan: t.string({ required: true, description: "A plan code of the insurers' travel products" }),
    region: t.string({ required: true, description: 'africa, schengen (Europe) or worldwide' }),
    destination: t.string({ description: 'Countries visited' }),
    departureDate: t.string({ required: true, description: 'Y-m-d: first day of cover, today or later' }),
    returnDate: t.string({ required: true, description: 'Y-m-d: last day of cover' }),
    travellers: t.field({
      type: [TravellerInput],
      required: true,
      description: 'The people travelling, at least one.',
    }),
    insurerIds: t.intList({
      description: 'Limit to these insurers; null or an empty list: every insurer on the panel',
    }),
  }),
});

const StandardItemInput = builder.inputType('StandardItemInput', {
  description: 'An item or insured person under a standard product.',
  fields: (t) => ({
    description: t.string({ description: 'What is insured, or the insured person; required to bind' }),
    sumInsured: t.float({ description: 'Whole shillings' }),
    idNo: t.string({ description: 'Insured persons: national ID or passport number' }),
  }),
});

export const StandardCoverInput = builder.inputType('StandardCoverInput', {
  description: 'A standard-product risk to price: the product, its items or headcount, extensions.',
  fields: (t) => ({
    product: t.string({ required: true, description: 'A standard product code (GET /products): PA, DOMESTIC, …' }),
    items: t.field({
      type: [StandardItemInput],
      description: 'The items or persons insured (with sums insured where the product rates on them).',
    }),
    headcount: t.int({ description: 'Headcount-driven products: people covered when not listed as items' }),
    extensions: t.stringList({ description: 'Optional extensions by code' }),
    startDate: t.string({ description: 'Y-m-d; a past date starts today (a bind takes policy.startDate)' }),
    insurerIds: t.intList({
      description: 'Limit to these insurers; null or an empty list: every insurer on the panel',
    }),
  }),
});

export const CoverBindPolicyInput = builder.inputType('CoverBindPolicyInput', {
  description: "Binding a medical, travel or standard quote: the insurer's option and the premium agreed.",
  fields: (t) => ({
    startDate: t.string({ description: 'Y-m-d; required except for a trip (which starts on its departure date)' }),
    insurerId: t.int({ required: true, description: "The insurer chosen (databaseId, from the quote's options)." }),
    totalBasic: t.float({ description: 'Whole shillings; checked when sent' }),
    taxes: t.float({ description: 'Whole shillings; checked when sent' }),
    premium: t.float({
      required: true,
      description: 'Gross premium, whole shillings; within KES 1 of the server price',
    }),
    premiumInstalments: t.int({ description: '1–4 where the insurer allows, default 1' }),
    paymentMode: t.string({ description: 'full (default) or ipf' }),
    productVersion: t.int({ description: 'Rating version priced on; a newer one answers price_changed' }),
  }),
});
