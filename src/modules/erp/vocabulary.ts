/**
 * The ERP exports' request bounds as plain constants, which the REST definitions (rest-compat/routes/erp.ts) are built
 * from so they cannot disagree with the service.
 */

/** The highest page number of an export (the lists' own bound: docs/api-conventions.md "Hostile values"). */
export const ERP_MAX_PAGE = 1_000_000;
