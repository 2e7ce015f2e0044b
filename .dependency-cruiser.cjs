/**
 * The import rules `npm run deps` checks in CI, so the design's boundaries cannot slip again.
 *
 * - The appliance and the cloud are two processes on two machines: all they share is what crosses
 *   the wire between them, and that lives in shared/. Neither imports the other, and shared/
 *   imports neither.
 * - A module is a folder directly under appliance/ or cloud/. Its index.ts is its only face:
 *   another module, or a composition root (a file directly under appliance/ or cloud/: app.ts,
 *   services.ts, main.ts, ...), imports it from there and nowhere else, so a module can
 *   reorganise its insides without its neighbours noticing.
 * - Work that spans domains is a flow (appliance/flows, cloud/flows): flows import domains, and only
 *   the composition roots import flows.
 * - shared/ is a library of contracts, one file each (a wire schema, the envelope, the MQTT
 *   topics, ...): every file in it is public, and there is no face to go through. A face over
 *   shared/devices would pull the X.509 code into everything that only wants a topic name.
 * - No cycle of runtime imports. A type-only import is erased before anything runs, so it cannot
 *   take part in an initialisation-order bug; it is exempt (the cloud's schema composes the table
 *   types each module owns, while each module's store takes the typed database).
 *
 * Tests and scripts/ are tools, not product: a test may reach into the module it tests, a bench
 * or the synthetic world into the pieces it drives. Nothing in the product imports them.
 */
const PRODUCT = '^(appliance|cloud|shared)/';
const MODULE_INSIDE = '^(appliance|cloud)/[^/]+/.+';
const FACE = '^(appliance|cloud)/[^/]+/index\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'appliance-imports-cloud',
      comment:
        'The appliance runs in the store and the cloud elsewhere: what both need is a contract in shared/.',
      severity: 'error',
      from: { path: '^appliance/' },
      to: { path: '^cloud/' },
    },
    {
      name: 'cloud-imports-appliance',
      comment: 'The cloud never runs appliance code: what both need is a contract in shared/.',
      severity: 'error',
      from: { path: '^cloud/' },
      to: { path: '^appliance/' },
    },
    {
      name: 'shared-imports-a-side',
      comment: 'shared/ holds only what crosses the wire; it cannot depend on either side of it.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(appliance|cloud|scripts|test)/' },
    },
    {
      name: 'module-internals',
      comment:
        'Another module is reached through its index.ts only; anything else in its folder is its own business.',
      severity: 'error',
      from: { path: '^(appliance|cloud)/([^/]+)/' },
      to: { path: MODULE_INSIDE, pathNot: ['^$1/$2/', FACE] },
    },
    {
      name: 'root-into-module-internals',
      comment: 'Composition roots only wire modules together, through their faces like everybody else.',
      severity: 'error',
      from: { path: '^(appliance|cloud)/[^/]+\\.ts$' },
      to: { path: MODULE_INSIDE, pathNot: FACE },
    },
    {
      name: 'domain-imports-flows',
      comment:
        'Flows sit above the domains and link them; a domain that imported a flow would depend on its neighbours through it.',
      severity: 'error',
      from: { path: '^(appliance|cloud)/[^/]+/', pathNot: '^(appliance|cloud)/flows/' },
      to: { path: '^(appliance|cloud)/flows/' },
    },
    {
      name: 'product-imports-tools',
      comment: 'Tests and scripts drive the product; the product never depends on them.',
      severity: 'error',
      from: { path: PRODUCT },
      to: { path: '^(scripts|test)/' },
    },
    {
      name: 'runtime-cycle',
      comment:
        'A cycle of runtime imports makes start-up order depend on which file happens to load first. Type-only imports are erased before anything runs.',
      severity: 'error',
      from: { path: PRODUCT },
      to: {
        circular: true,
        dependencyTypesNot: ['type-only'],
        viaOnly: { dependencyTypesNot: ['type-only'] },
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The kiosk's and the console's browser UIs are TypeScript projects of their own.
    exclude: {
      path: [
        'node_modules',
        '^dist/',
        '^appliance/kiosk/web/(node_modules|dist)/',
        '^cloud/console/web/(node_modules|dist)/',
      ],
    },
    // Type-only imports are kept, and told apart, so the cycle rule can exempt them.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.mts', '.js', '.mjs', '.cjs', '.json'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
