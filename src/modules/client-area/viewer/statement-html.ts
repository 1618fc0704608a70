import { nairobiIso } from '../../../lib/dates.ts';
import type { Statement } from './statement.ts';

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Cents as "KES 1,234.56" (exact: no float arithmetic). */
export function kes(cents: bigint): string {
  const neg = cents < 0n;
  const abs = neg ? -cents : cents;
  const whole = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${neg ? '-' : ''}KES ${whole}.${(abs % 100n).toString().padStart(2, '0')}`;
}

/**
 * The statement as a self-contained printable page (no scripts, no outside assets; the browser prints it to PDF).
 * Every value is escaped: names and references come from data a customer or an integration typed.
 */
export function statementHtml(s: Statement): string {
  const rows = s.lines
    .map(
      (l) =>
        `<tr><td>${esc(nairobiIso(l.at).slice(0, 10))}</td><td>${esc(l.number)}</td><td>${esc(l.policyNo ?? '')}</td>` +
        `<td>${esc(l.description)}</td><td class="n">${l.debitMinor ? kes(l.debitMinor) : ''}</td>` +
        `<td class="n">${l.creditMinor ? kes(l.creditMinor) : ''}</td><td class="n">${kes(l.balanceMinor)}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Statement ${esc(s.clientNo)}</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ccc;padding:4px 6px;text-align:left}.n{text-align:right;white-space:nowrap}@media print{body{margin:0}}</style>
</head><body>
<h1>Statement of account</h1>
<p>${esc(s.name)} (${esc(s.clientNo)}), as at ${esc(nairobiIso(s.generatedAt).slice(0, 16).replace('T', ' '))} (Nairobi)</p>
<table><thead><tr><th>Date</th><th>Reference</th><th>Policy</th><th>Description</th><th class="n">Debit</th><th class="n">Credit</th><th class="n">Balance</th></tr></thead>
<tbody>
${rows}
</tbody>
<tfoot><tr><th colspan="4">Totals</th><th class="n">${kes(s.totalDebitsMinor)}</th><th class="n">${kes(s.totalCreditsMinor)}</th><th class="n">${kes(s.closingBalanceMinor)}</th></tr></tfoot>
</table>
<p>${s.closingBalanceMinor > 0n ? `Amount due: ${kes(s.closingBalanceMinor)}` : s.closingBalanceMinor < 0n ? `In credit: ${kes(-s.closingBalanceMinor)}` : 'Nothing is due.'}</p>
</body></html>
`;
}
