import { dashboardPage } from './dashboard.ts';
import { docsPage } from './docs.ts';
import { homePage } from './home.ts';
import { metricsPage } from './metrics.ts';
import type { Page } from './page.ts';

/** The pages beside the API, asked in this order. */
export const PAGES: readonly Page[] = [metricsPage, docsPage, dashboardPage, homePage];
