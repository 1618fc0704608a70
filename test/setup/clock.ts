import { setTestClock } from '../../src/lib/clock.ts';
import { TEST_NOW } from '../helpers/clock.ts';

// Before every test file (vitest setupFiles): the service's clock at TEST_NOW, running on from there. A file that
// needs another day or an exact instant sets it with test/helpers/clock.ts.
setTestClock(TEST_NOW);
