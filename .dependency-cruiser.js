// Which folder may import which (docs/internals.md, "Layers"), checked in CI by
// `npm run check:imports`. Layers are listed bottom to top: a module may import its own layer and
// the ones below it, never one above, and no module may take part in an import cycle.
const LAYERS = [
  ['config', '^config/'],
  ['runtime', '^src/runtime/'],
  ['codec', '^src/(job|periodic)/'],
  ['redis', '^src/redis/'],
  ['threads', '^workers/'],
  ['node parts', '^src/(fetch|run|pool|handlers|events|actors|tracing)/'],
  ['supervisors', '^supervisors/'],
  ['operations', '^src/(admin|metrics|web)/'],
  ['node', '^src/node/|^src/(nexq|index|errors|define-job)\\.ts$'],
  ['entry points', '^src/(cli|testing)/'],
];

const upward = LAYERS.flatMap(([name, path], i) => {
  const above = LAYERS.slice(i + 1);
  if (above.length === 0) return [];
  return [
    {
      name: `no-upward-from-${name.replace(/ /g, '-')}`,
      comment: `${name} (${path}) may not import a layer above it: ${above.map(([n]) => n).join(', ')}`,
      severity: 'error',
      from: { path },
      to: { path: above.map(([, p]) => `(${p})`).join('|') },
    },
  ];
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'No import cycles, type-only ones included: each is two modules that are really one, or a layer upside down.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-redis-in-threads',
      comment: 'workers/ runs inside worker threads and never talks to Redis (see docs/internals.md).',
      severity: 'error',
      from: { path: '^workers/' },
      to: { path: 'node_modules/ioredis' },
    },
    {
      name: 'scripts-read-config-only',
      comment:
        'scripts/ (the docs generator) reads config/, the bottom layer, and nothing above it (docs/internals.md, "Layers").',
      severity: 'error',
      from: { path: '^scripts/' },
      to: { path: '^(src|supervisors|workers)/' },
    },
    {
      name: 'every-module-in-a-layer',
      comment:
        'A module of src/, config/, workers/ or supervisors/ that no layer above names escapes the check: add its folder to LAYERS.',
      severity: 'error',
      from: { path: '^(src|config|workers|supervisors)/', pathNot: LAYERS.map(([, p]) => `(${p})`).join('|') },
      to: {},
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|test|bench|examples)/' },
  },
};
