import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCell, csvRow, parseCsv } from '../src/lib/csv.ts';

/**
 * The CSV writer of the ERP exports (src/lib/csv.ts): RFC 4180 round trip (any text, commas, quotes and line breaks
 * included, comes back as written, save the formula prefix) and the OWASP formula-injection rule.
 */
describe('csvCell / csvRow', () => {
  it('quotes only what RFC 4180 needs quoted, doubling quotes', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('Smith, Jr')).toBe('"Smith, Jr"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('cr\rhere')).toBe('"cr\rhere"');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvRow(['a', 1, null, true])).toBe('a,1,,true\r\n');
  });

  it('defuses text that a spreadsheet would run as a formula, and leaves numbers alone', () => {
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
    expect(csvCell('+254700000000')).toBe("'+254700000000");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tcmd')).toBe("'\tcmd");
    expect(csvCell('\rcmd')).toBe('"\'\rcmd"');
    expect(csvCell(-1500)).toBe('-1500');
    expect(csvCell(12n)).toBe('12');
    expect(csvCell('a=b')).toBe('a=b');
  });

  it('round-trips any rows of text (property)', () => {
    const cell = fc.string({
      unit: fc.constantFrom('a', 'b', ',', '"', '\n', '\r', ' ', 'é', '=', '-', '+', '@', '\t'),
    });
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 6 }), (rows) => {
        const text = rows.map((r) => csvRow(r)).join('');
        const back = parseCsv(text);
        const expected = rows.map((r) => r.map((c) => (/^[=+\-@\t\r]/.test(c) ? `'${c}` : c)));
        expect(back).toEqual(expected);
        // Never a cell that starts a formula once read back.
        for (const r of back) for (const c of r) expect(c).not.toMatch(/^[=+\-@\t\r]/);
      }),
      { numRuns: 300 },
    );
  });
});
