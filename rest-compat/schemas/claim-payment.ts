export const claimPaymentSchemas = {};
