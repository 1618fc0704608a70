/**
 * SMS segment counting by the GSM 03.38 rules (docs/sms.md "SMS"): what one message costs per recipient.
 *
 * - GSM-7: every character of the basic set is one septet; the extension table (form feed ^ { } \ [ ~ ] | €) is two
 *   (an escape and the character). A message of at most 160 septets is one segment; a longer one is split into parts
 *   of at most 153 septets (7 go to the concatenation header), and an extension character is never split across two
 *   parts: when only one septet is left in a part, its escape and character both move to the next.
 * - UCS-2: any character outside both tables makes the whole message UCS-2, counted in UTF-16 code units: 70 alone,
 *   67 per part. A character outside the Basic Multilingual Plane (an emoji) is a surrogate pair, two units, and a
 *   part never ends between the two halves of a pair (handsets would show two broken characters): the pair moves to
 *   the next part, as the major gateways split it.
 * - The escape character itself (U+001B) is not accepted as text: it counts as a non-GSM character (UCS-2).
 */

export type SmsEncoding = 'gsm7' | 'ucs2';

export interface SegmentCount {
  encoding: SmsEncoding;
  segments: number;
  /** Unicode code points in the text. */
  characters: number;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2): what the limits count. */
  units: number;
}

/** The GSM 03.38 basic character set (without the escape at 0x1B), in table order. */
const BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** The extension table: each costs two septets (escape + character). */
const EXTENSION = '\f^{}\\[~]|€';

const BASIC_SET = new Set(BASIC);
const EXTENSION_SET = new Set(EXTENSION);

export const GSM7_SINGLE = 160;
export const GSM7_PART = 153;
export const UCS2_SINGLE = 70;
export const UCS2_PART = 67;

/** Septets one character costs in GSM-7, or null when it is outside both tables. */
export function gsmSeptets(ch: string): 1 | 2 | null {
  if (BASIC_SET.has(ch)) return 1;
  if (EXTENSION_SET.has(ch)) return 2;
  return null;
}

/**
 * Packs indivisible units (each a character's septets, or a code point's UTF-16 units) into parts of at most
 * `part` in order, never splitting one: the number of parts.
 */
function packParts(sizes: number[], part: number): number {
  let parts = 1;
  let used = 0;
  for (const size of sizes) {
    if (used + size > part) {
      parts += 1;
      used = 0;
    }
    used += size;
  }
  return parts;
}

export function segmentsOf(text: string): SegmentCount {
  const chars = [...text]; // by code point: a surrogate pair stays one element
  const septets = chars.map(gsmSeptets);
  if (septets.every((s) => s !== null)) {
    const sizes = septets as number[];
    const units = sizes.reduce((a, b) => a + b, 0);
    const segments = units <= GSM7_SINGLE ? 1 : packParts(sizes, GSM7_PART);
    return { encoding: 'gsm7', segments, characters: chars.length, units };
  }
  const sizes = chars.map((c) => c.length);
  const units = text.length;
  const segments = units <= UCS2_SINGLE ? 1 : packParts(sizes, UCS2_PART);
  return { encoding: 'ucs2', segments, characters: chars.length, units };
}
