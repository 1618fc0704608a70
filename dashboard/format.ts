/** Whole shillings as people read them: KES 12,345. */
export const kes = (shillings: number): string => `KES ${shillings.toLocaleString('en-KE')}`;

/** Today on the Nairobi calendar (UTC+3 all year), from this browser's clock. */
export const todayNairobi = (): string => new Date(Date.now() + 3 * 3_600_000).toISOString().slice(0, 10);

/** An instant as Nairobi wall time, HH:MM:SS. */
export const nairobiTime = (iso: string): string =>
  new Date(new Date(iso).getTime() + 3 * 3_600_000).toISOString().slice(11, 19);

export const percent = (rate: number | null | undefined): string =>
  rate == null ? '–' : `${(rate * 100).toFixed(rate === 1 ? 0 : 1)}%`;
