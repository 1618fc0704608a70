import { builder } from '../../graphql/builder.ts';

/** GraphQL inputs of the non-motor lines: the same fields the REST bodies carry (covers/<line>/<line>.ts). */

const MedicalMemberInput = builder.inputType('MedicalMemberInput', {
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
  fields: (t) => ({
    code: t.string({ required: true, description: 'outpatient, maternity, dental or optical' }),
    limit: t.float({ required: true, description: "Whole shillings: one of the rider's limit bands" }),
  }),
});

export const MedicalCoverInput = builder.inputType('MedicalCoverInput', {
  fields: (t) => ({
    coverType: t.string({ description: 'family (default) or group' }),
    inpatientLimit: t.float({ required: true, description: 'Whole shillings: one of the inpatient limit bands' }),
    riders: t.field({ type: [MedicalRiderInput] }),
    members: t.field({ type: [MedicalMemberInput], required: true }),
    startDate: t.string({ description: 'Y-m-d; a past date starts today (a bind takes policy.startDate)' }),
    insurerIds: t.intList({ description: 'Limit to these insurers' }),
  }),
});

const TravellerInput = builder.inputType('TravellerInput', {
  fields: (t) => ({
    name: t.string({ description: 'Required to bind' }),
    dateOfBirth: t.string({ description: 'Y-m-d; or age' }),
    age: t.int({ description: 'Whole years, when no date of birth is given' }),
    passportNo: t.string(),
  }),
});

export const TripInput = builder.inputType('TripInput', {
  fields: (t) => ({
    plan: t.string({ required: true, description: "A plan code of the insurers' travel products" }),
    region: t.string({ required: true, description: 'africa, schengen (Europe) or worldwide' }),
    destination: t.string({ description: 'Countries visited' }),
    departureDate: t.string({ required: true, description: 'Y-m-d: first day of cover, today or later' }),
    returnDate: t.string({ required: true, description: 'Y-m-d: last day of cover' }),
    travellers: t.field({ type: [TravellerInput], required: true }),
    insurerIds: t.intList({ description: 'Limit to these insurers' }),
  }),
});

const StandardItemInput = builder.inputType('StandardItemInput', {
  fields: (t) => ({
    description: t.string({ description: 'What is insured, or the insured person; required to bind' }),
    sumInsured: t.float({ description: 'Whole shillings' }),
    idNo: t.string({ description: 'Insured persons: national ID or passport number' }),
  }),
});

export const StandardCoverInput = builder.inputType('StandardCoverInput', {
  fields: (t) => ({
    product: t.string({ required: true, description: 'A standard product code (GET /products): PA, DOMESTIC, …' }),
    items: t.field({ type: [StandardItemInput] }),
    headcount: t.int({ description: 'Headcount-driven products: people covered when not listed as items' }),
    extensions: t.stringList({ description: 'Optional extensions by code' }),
    startDate: t.string({ description: 'Y-m-d; a past date starts today (a bind takes policy.startDate)' }),
    insurerIds: t.intList({ description: 'Limit to these insurers' }),
  }),
});

export const CoverBindPolicyInput = builder.inputType('CoverBindPolicyInput', {
  fields: (t) => ({
    startDate: t.string({ description: 'Y-m-d; required except for a trip (which starts on its departure date)' }),
    insurerId: t.int({ required: true }),
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
