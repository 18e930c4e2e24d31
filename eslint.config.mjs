// ESLint: typescript-eslint's strict type-checked rules over the library, its tests and bench.
// Formatting is Prettier's (npm run format); ESLint checks what the type checker can see.
// Where a strict rule does not fit, it is tuned or turned off below with the reason.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'bench/peers/**',
      'var/**',
      'test/fixtures/**',
      'examples/**',
      'src/web/assets/**',
      '*.js',
      '*.mjs',
      'scripts/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Numbers and booleans read fine in messages; objects and undefined are still refused.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // `() => void send()` and `x => doSomething(x)` callbacks are the actor runtime's idiom.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // Lines stay within 120 columns (Prettier wraps code; this catches comments and long strings).
      'max-len': [
        'error',
        { code: 120, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true },
      ],
      // A promise nobody handles ends a node's process when it rejects (Node 20; a Sentinel
      // failover killed a node that way). So `void` does not count as handling one: each promise
      // is awaited, returned, or given a rejection handler that says what a failure means.
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // A lookup by name or child id answers with the type its caller names (OTP's whereis): the
    // type parameter is that cast, on purpose, as the registry holds actors of every type.
    files: ['src/runtime/registry.ts', 'supervisors/supervisor.ts'],
    rules: { '@typescript-eslint/no-unnecessary-type-parameters': 'off' },
  },
  {
    // The metrics and the web dashboard are loaded on first use, synchronously (the `metrics` getter).
    files: ['src/node/node.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // winston types its transports as interfaces with construct signatures: `new Console()` is an
    // instance of the class, which this rule cannot see.
    files: ['src/runtime/logger.ts'],
    rules: { '@typescript-eslint/no-unsafe-class-instance-assignment': 'off' },
  },
  {
    // Tests and the bench read JSON from Redis and from child processes, and assert on it with
    // chai: `any` there is what the test is checking, and `!` after a lookup is the assertion.
    files: ['test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      // chai's `expect(x).to.be.true` is an expression statement by design.
      '@typescript-eslint/no-unused-expressions': 'off',
      // A rejection is cast to its error class beside chai's instanceOf check; winston's transports
      // are typed as interfaces with construct signatures (see src/runtime/logger.ts).
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
    },
  },
);
