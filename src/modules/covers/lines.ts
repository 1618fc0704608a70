import type { CoverLine, CoverLineCode, CoverRiskBase } from './line.ts';
import { medicalLine } from './medical/medical.ts';
import { standardLine } from './standard/standard.ts';
import { travelLine } from './travel/travel.ts';

/** Every non-motor line by code: what the shared quote, save-quote and bind code dispatches on. */
export const LINES = {
  medical: medicalLine,
  travel: travelLine,
  standard: standardLine,
} as const;

export type AnyCoverLine = CoverLine<unknown, CoverRiskBase>;

export const lineOf = (code: CoverLineCode): AnyCoverLine => LINES[code];
