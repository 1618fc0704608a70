/** Daraja's B2C (business to customer) payment rail: filled in by the B2C work (issue 13). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface B2cRail {}
