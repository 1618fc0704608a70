export const prospectSchemas = {};
