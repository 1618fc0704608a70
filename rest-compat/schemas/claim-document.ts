export const claimDocumentSchemas = {};
