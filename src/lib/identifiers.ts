/**
 * Kenyan identifiers, normalised so duplicates are found whatever the spelling (../shared/notes/domain.md).
 * Each returns null when the input cannot be one.
 */

/** Mobile numbers: 07…, 01…, +254…, 254…, 7…/1… (9-digit NSN), spaces and dashes → 2547XXXXXXXX / 2541XXXXXXXX. */
export function normalisePhone(raw: string): string | null {
  const digits = raw.replace(/[\s\-().]/g, '').replace(/^\+/, '');
  if (!/^\d+$/.test(digits)) return null;
  let nsn: string;
  if (digits.length === 12 && digits.startsWith('254')) nsn = digits.slice(3);
  else if (digits.length === 10 && digits.startsWith('0')) nsn = digits.slice(1);
  else if (digits.length === 9) nsn = digits;
  else return null;
  return /^[71]\d{8}$/.test(nsn) ? `254${nsn}` : null;
}

/** National ID (digits, 6–14; new lifelong numbers have 14) or passport (letters and digits, 6–12), upper case. */
export function normaliseIdNo(raw: string): string | null {
  const v = raw.replace(/[\s-]/g, '').toUpperCase();
  if (/^\d{6,14}$/.test(v)) return v.replace(/^0+(?=\d{6})/, '');
  return /^[A-Z0-9]{6,12}$/.test(v) && /[A-Z]/.test(v) ? v : null;
}

/** KRA PIN: A (individual) or P (non-individual), 9 digits, 1 letter; stored upper case. */
export function normaliseKraPin(raw: string): string | null {
  const v = raw.replace(/\s/g, '').toUpperCase();
  return /^[AP]\d{9}[A-Z]$/.test(v) ? v : null;
}

/** A person's identifiers, normalised, as clients and prospects store them (null or absent: not given). */
export interface PersonIdentifiers {
  phone?: string | null;
  idNo?: string | null;
  kraPin?: string | null;
}

/** A search term read as each identifier it could be (a number may be a phone and an ID number at once). */
export function identifiersIn(term: string): PersonIdentifiers {
  return { phone: normalisePhone(term), idNo: normaliseIdNo(term), kraPin: normaliseKraPin(term) };
}

/** One equality condition per identifier given: an OR of them finds any record holding one (fields named alike). */
export function identityConditions(
  ids: PersonIdentifiers,
): ({ phone: string } | { idNo: string } | { kraPin: string })[] {
  return [
    ...(ids.phone ? [{ phone: ids.phone }] : []),
    ...(ids.idNo ? [{ idNo: ids.idNo }] : []),
    ...(ids.kraPin ? [{ kraPin: ids.kraPin }] : []),
  ];
}

/** Which of the identifiers a record shares, in the REST spelling of a duplicate's `matched[]`. */
export function matchedIdentifiers(ids: PersonIdentifiers, row: PersonIdentifiers): string[] {
  return [
    ...(ids.phone && row.phone === ids.phone ? ['phone'] : []),
    ...(ids.idNo && row.idNo === ids.idNo ? ['id_no'] : []),
    ...(ids.kraPin && row.kraPin === ids.kraPin ? ['kra_pin'] : []),
  ];
}

/** Vehicle registration: spaces stripped, upper case (KAA 123A → KAA123A, KMAA 123A, GK…). */
export function normaliseRegNo(raw: string): string | null {
  const v = raw.replace(/[\s-]/g, '').toUpperCase();
  return /^[A-Z0-9]{4,10}$/.test(v) ? v : null;
}

/** A canonical UUID (any version): what may be cast to PostgreSQL's uuid without an error. */
export const isUuid = (s: unknown): s is string =>
  typeof s === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);
