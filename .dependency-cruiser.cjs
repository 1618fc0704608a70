/**
 * Who may import whom (README "Architecture: floors"). `npm run lint` runs this over src, rest-compat and jobs; CI
 * fails on any violation. A floor imports only floors below it; a domain module imports only modules on lower floors
 * of MODULE_FLOORS (never one on its own floor), so modules cannot import each other in a circle.
 */

/** Domain modules, lowest first. A new module takes the lowest floor above everything it needs. */
const MODULE_FLOORS = [
  ['access'],
  ['audit', 'events', 'reference'],
  ['clients'],
  ['prospects', 'sms'],
  ['motor'],
  ['covers'],
  ['certificates'],
  ['policies'],
  ['finance'],
  ['payments', 'webhooks', 'api-clients', 'identity', 'maintenance'],
  ['claims'],
  ['client-area', 'erp'],
  ['sandbox'],
];

const LIB = '^src/lib/';
const PORTS = '^src/ports/';
const GENERATED = '^src/generated/';
/** The platform the modules stand on: database, principals, the context, and the schema builder with its shared types and its own plugins. */
const KERNEL = [
  '^src/db/',
  '^src/auth/',
  '^src/context[.]ts$',
  '^src/graphql/(builder|common|scalars|access|column-fields|compiled-paths|input-paths|plan-cache|record-budget)[.]ts$',
];
/** What serves requests: HTTP, Yoga and its plugins, WebSockets, the REST facade, the app's assembly. */
const TRANSPORT = [
  '^src/http/',
  '^src/server[.]ts$',
  '^src/app[.]ts$',
  '^src/main[.]ts$',
  '^src/graphql/(?!(builder|common|scalars|access|column-fields|compiled-paths|input-paths|plan-cache|record-budget)[.]ts$)',
  '^rest-compat/',
];

const moduleRules = MODULE_FLOORS.flatMap((floor, i) => {
  const allowed = MODULE_FLOORS.slice(0, i).flat();
  return floor.map((name) => ({
    name: `module-floor-${name}`,
    comment: `${name} may import only the modules below its floor: ${allowed.join(', ') || 'none'}`,
    severity: 'error',
    from: { path: `^src/modules/${name}/` },
    to: {
      path: '^src/modules/([^/]+)/',
      pathNot: [`^src/modules/${name}/`, ...allowed.map((m) => `^src/modules/${m}/`)],
    },
  }));
});

const knownModules = MODULE_FLOORS.flat();

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles anywhere (a cycle makes load order decide behaviour).',
      severity: 'error',
      from: { path: '^(src|rest-compat|jobs)/' },
      to: { circular: true },
    },
    {
      name: 'module-has-a-floor',
      comment: 'Every domain module is placed on a floor in MODULE_FLOORS (.dependency-cruiser.cjs).',
      severity: 'error',
      from: { path: `^src/modules/(?!(${knownModules.join('|')})/)` },
      to: {},
    },
    ...moduleRules,
    {
      name: 'lib-imports-only-lib',
      comment: 'src/lib is the floor under everything: pure helpers, no database, no modules, no transport.',
      severity: 'error',
      from: { path: LIB },
      to: { path: '^(src|rest-compat|jobs)/', pathNot: LIB },
    },
    {
      name: 'ports-import-only-lib',
      comment: 'src/ports holds the rails’ wire shapes and interfaces: nothing of ours but src/lib.',
      severity: 'error',
      from: { path: PORTS },
      to: { path: '^(src|rest-compat|jobs)/', pathNot: [LIB, PORTS] },
    },
    {
      name: 'kernel-stays-below-modules',
      comment: 'The kernel (db, auth, context, schema builder) imports no module, no transport and no job.',
      severity: 'error',
      from: { path: KERNEL },
      to: { path: ['^src/modules/', '^jobs/', ...TRANSPORT] },
    },
    {
      name: 'modules-not-transport-or-jobs',
      comment:
        'Modules never import the transport (src/http, Yoga, the facade) or jobs/: rails and limits reach them as ports on AppServices.',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: ['^jobs/', ...TRANSPORT] },
    },
    {
      name: 'facade-translates-only',
      comment:
        'rest-compat/ runs GraphQL operations: it imports neither Prisma, the database nor any module, except a ' +
        "module's vocabulary.ts (its words and request bounds as plain constants), which the REST definitions are " +
        'built from so they cannot disagree with the service.',
      severity: 'error',
      from: { path: '^rest-compat/' },
      to: {
        path: ['^src/modules/', '^src/db/', '^src/generated/prisma/', '^jobs/', 'node_modules/(@prisma|prisma)/'],
        pathNot: ['^src/modules/[^/]+/vocabulary\\.ts$'],
      },
    },
    {
      name: 'jobs-not-transport',
      comment: 'Job workers call services; they do not go through HTTP or the facade.',
      severity: 'error',
      from: { path: '^jobs/' },
      to: { path: TRANSPORT },
    },
    {
      name: 'admin-cli-calls-services',
      comment:
        'The admin CLI (src/admin, run by scripts/admin.ts) calls services as job workers do, never the transport; and nothing of the service imports it.',
      severity: 'error',
      from: { path: '^src/admin/' },
      to: { path: TRANSPORT },
    },
    {
      name: 'nothing-imports-the-admin-cli',
      comment:
        'src/admin is an entry point of its own (scripts/admin.ts), not a floor the service stands on; the one door ' +
        'in is the started service serving its admin socket (src/process/single.ts → src/admin/socket.ts).',
      severity: 'error',
      from: { path: '^(src/(?!admin/)|rest-compat/|jobs/)' },
      to: { path: '^src/admin/', pathNot: '^src/admin/socket\\.ts$' },
    },
    {
      name: 'only-the-process-opens-the-admin-socket',
      comment: 'The admin socket is opened by the process that owns the embedded database, nowhere else.',
      severity: 'error',
      from: { path: '^(src/(?!admin/)|rest-compat/|jobs/)', pathNot: '^src/process/single\\.ts$' },
      to: { path: '^src/admin/socket\\.ts$' },
    },
    {
      name: 'generated-is-generated',
      comment: 'Generated code imports nothing of ours.',
      severity: 'error',
      from: { path: GENERATED },
      to: { path: '^(src/(?!generated/)|rest-compat/|jobs/)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^src/generated/prisma/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
