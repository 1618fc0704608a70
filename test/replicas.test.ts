import { deploymentSuite } from './helpers/deployment-suite.ts';

// Issue 12 §4: two web processes and a jobs process straight to one database (test/helpers/deployment-suite.ts).
deploymentSuite('direct');
