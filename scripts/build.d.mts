// Types for scripts/build.mjs (plain JavaScript so that `npm start` needs no TypeScript loader), for the tests that
// import it.
import type { BuildOptions } from 'esbuild';

export declare const OUTFILE: string;
export declare const ADMIN_OUTFILE: string;
export declare const DASHBOARD_DIR: string;
export declare const NODE_BUNDLE: BuildOptions;
export declare function isStale(): boolean;
export declare function build(): Promise<void>;
