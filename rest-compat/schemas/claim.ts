export const claimSchemas = {};
