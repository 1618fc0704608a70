import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { segmentsOf } from '../src/lib/sms-segments.ts';

/**
 * Segment counting (src/lib/sms-segments.ts) against a second, deliberately naive implementation written here: its
 * own copy of the GSM 03.38 tables (as code points, typed from the standard's table rather than copied from the
 * module), and a loop that builds the parts one character at a time. Hand-worked edge cases pin the boundaries.
 */

// GSM 03.38 basic set by code point, row by row of the standard's table (0x1B, the escape, left out).
const NAIVE_BASIC = new Set<number>([
  0x40, 0xa3, 0x24, 0xa5, 0xe8, 0xe9, 0xf9, 0xec, 0xf2, 0xc7, 0x0a, 0xd8, 0xf8, 0x0d, 0xc5, 0xe5, 0x394, 0x5f, 0x3a6,
  0x393, 0x39b, 0x3a9, 0x3a0, 0x3a8, 0x3a3, 0x398, 0x39e, 0xc6, 0xe6, 0xdf, 0xc9, 0x20, 0x21, 0x22, 0x23, 0xa4, 0x25,
  0x26, 0x27, 0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f, 0xa1, 0xc4, 0xd6,
  0xd1, 0xdc, 0xa7, 0xbf, 0xe4, 0xf6, 0xf1, 0xfc, 0xe0,
]);
for (let c = 0x30; c <= 0x39; c++) NAIVE_BASIC.add(c); // 0-9
for (let c = 0x41; c <= 0x5a; c++) NAIVE_BASIC.add(c); // A-Z
for (let c = 0x61; c <= 0x7a; c++) NAIVE_BASIC.add(c); // a-z
// Extension table: form feed, ^ { } \ [ ~ ] | €
const NAIVE_EXT = new Set<number>([0x0c, 0x5e, 0x7b, 0x7d, 0x5c, 0x5b, 0x7e, 0x5d, 0x7c, 0x20ac]);

/** Builds the parts literally: returns each part's size in septets or UTF-16 units. */
function naiveParts(text: string): { encoding: string; parts: number[]; units: number } {
  const cps: number[] = [];
  for (const ch of text) cps.push(ch.codePointAt(0)!);
  let gsm = true;
  for (const cp of cps) if (!NAIVE_BASIC.has(cp) && !NAIVE_EXT.has(cp)) gsm = false;
  const cost = (cp: number) => (gsm ? (NAIVE_EXT.has(cp) ? 2 : 1) : cp > 0xffff ? 2 : 1);
  let total = 0;
  for (const cp of cps) total += cost(cp);
  const single = gsm ? 160 : 70;
  const per = gsm ? 153 : 67;
  if (total <= single) return { encoding: gsm ? 'gsm7' : 'ucs2', parts: [total], units: total };
  const parts: number[] = [0];
  for (const cp of cps) {
    const c = cost(cp);
    if (parts[parts.length - 1] + c > per) parts.push(0);
    parts[parts.length - 1] += c;
  }
  return { encoding: gsm ? 'gsm7' : 'ucs2', parts, units: total };
}

const GSM_CHARS = [...'@£$¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./09:;<=>?¡AZÄÖÑÜ§¿azäöñüà\n\r'];
const EXT_CHARS = [...'^{}\\[~]|€\f'];
const OTHER_CHARS = ['ā', 'ł', '✓', 'ж', '😀', '𝄞', '\u001b', '`'];

const arbText = (alphabet: string[]) =>
  fc.array(fc.constantFrom(...alphabet), { maxLength: 420 }).map((a) => a.join(''));

describe('SMS segments against a naive implementation', () => {
  it('GSM-7 texts with extension characters: same encoding, segments and septets', () => {
    fc.assert(
      fc.property(arbText([...GSM_CHARS, ...EXT_CHARS]), (text) => {
        const n = naiveParts(text);
        const got = segmentsOf(text);
        expect(got).toMatchObject({ encoding: n.encoding, segments: n.parts.length, units: n.units });
        expect(n.parts.every((p) => p <= (n.parts.length === 1 ? 160 : 153))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('any text (one non-GSM character makes it UCS-2; pairs never split)', () => {
    fc.assert(
      fc.property(arbText([...GSM_CHARS, ...EXT_CHARS, ...OTHER_CHARS]), (text) => {
        const n = naiveParts(text);
        expect(segmentsOf(text)).toMatchObject({ encoding: n.encoding, segments: n.parts.length, units: n.units });
      }),
      { numRuns: 500 },
    );
  });

  it('random Unicode strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        const n = naiveParts(text);
        expect(segmentsOf(text)).toMatchObject({ encoding: n.encoding, segments: n.parts.length, units: n.units });
      }),
      { numRuns: 300 },
    );
  });
});

describe('SMS segments: hand-worked cases', () => {
  const cases: [string, string, string, number, number][] = [
    ['empty', '', 'gsm7', 1, 0],
    ['160 GSM characters: one', 'a'.repeat(160), 'gsm7', 1, 160],
    ['161: two', 'a'.repeat(161), 'gsm7', 2, 161],
    ['153 × 2 = 306: two', 'a'.repeat(306), 'gsm7', 2, 306],
    ['307: three', 'a'.repeat(307), 'gsm7', 3, 307],
    ['80 extension characters = 160 septets: one', '{'.repeat(80), 'gsm7', 1, 160],
    ['159 + € = 161 septets: two', `${'a'.repeat(159)}€`, 'gsm7', 2, 161],
    // 152 septets then an extension character: it cannot split at 153, so it opens part two.
    ['extension at the 153 boundary', `${'a'.repeat(152)}[${'a'.repeat(152)}`, 'gsm7', 3, 306],
    ['extension fits at 152/153', `${'a'.repeat(151)}[${'a'.repeat(153)}`, 'gsm7', 2, 306],
    ['70 UCS-2: one', 'ж'.repeat(70), 'ucs2', 1, 70],
    ['71: two', 'ж'.repeat(71), 'ucs2', 2, 71],
    ['67 × 2 = 134: two', 'ж'.repeat(134), 'ucs2', 2, 134],
    ['135: three', 'ж'.repeat(135), 'ucs2', 3, 135],
    ['one non-GSM character in 100 GSM ones', `${'a'.repeat(99)}ā`, 'ucs2', 2, 100],
    ['35 emoji = 70 units: one', '😀'.repeat(35), 'ucs2', 1, 70],
    // 66 units then a pair: it does not split at 67, so part one holds 66.
    ['surrogate pair at the 67 boundary', `${'ж'.repeat(66)}😀${'ж'.repeat(66)}`, 'ucs2', 3, 134],
    ['backtick is not GSM', '`', 'ucs2', 1, 1],
  ];
  for (const [name, text, encoding, segments, units] of cases) {
    it(name, () => expect(segmentsOf(text)).toMatchObject({ encoding, segments, units }));
  }
});
