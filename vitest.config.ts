import { defineConfig } from 'vitest/config';

export default defineConfig({
  // graphql 16 has no "exports": Node's ESM resolution loads its CommonJS entry while Vite would pick index.mjs,
  // and two graphql copies break schema identity. Resolve it the way Node does.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    globalSetup: ['./test/setup/global.ts'],
    // Every file starts with the service's clock at TEST_NOW (test/helpers/clock.ts), never the wall clock.
    setupFiles: ['./test/setup/clock.ts'],
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file gets its own database cloned from a migrated template, so files run in parallel safely.
    fileParallelism: true,
    // Two at a time even on a 2-CPU machine (the default there is one): most tests wait on the database, timers and
    // jobs, not the CPU. Measured on CI's 2-CPU VM: the suite in about two thirds of the time.
    maxWorkers: 2,
    // A worker keeps its modules from one file to the next instead of loading the whole app again for each (the
    // schema build, Prisma, Yoga: about 1.3 s of CPU a file, a third of the suite's time on a 2-CPU machine). Files
    // share no state that way: each starts its own app over its own database, the setup file resets the clock, and
    // the two files that spy on a module restore it after each test. Measured: 315 s → 214 s for the suite.
    isolate: false,
    env: { NODE_ENV: 'test' },
  },
});
