// The suites that need Chromium or Ruby's Sidekiq, run (in a child mocha) as on a machine without
// them: reported as skipped with the one line saying what to install, and failing under CI=true.
import { expect } from 'chai';
import path from 'node:path';
import { runProcess } from './support/cli';
import { repoRoot } from './support/paths';

const MOCHA = path.join(repoRoot, 'node_modules', 'mocha', 'bin', 'mocha.js');

/** One built test file in a child mocha with the global hooks (its own redis-server), under `env`. */
function runSuite(file: string, env: NodeJS.ProcessEnv) {
  const args = [
    MOCHA,
    '--no-config',
    '--require',
    path.join(repoRoot, 'dist/test/support/global-hooks.js'),
    '--timeout',
    '20000',
    '--exit',
    '--reporter',
    'spec',
    path.join(repoRoot, 'dist/test', file),
  ];
  return runProcess(process.execPath, args, { CI: undefined, ...env }, 60_000);
}

const CASES = [
  {
    file: 'web/browser.test.js',
    env: { NEXQ_TEST_CHROMIUM: '/nonexistent/chromium' },
    line: 'skipped: Chromium is missing (no executable /nonexistent/chromium): apt-get install chromium',
  },
  {
    file: 'interop/sidekiq-client.test.js',
    env: { NEXQ_TEST_SIDEKIQ: '/nonexistent/sidekiq' },
    line: "skipped: Ruby's Sidekiq is missing (no /nonexistent/sidekiq command): apt-get install ruby-sidekiq",
  },
  {
    file: 'interop/sidekiq-api.test.js',
    // The `sidekiq` command is looked for first: any executable stands in for it, so the Ruby check
    // is the one that fails, on a machine without Sidekiq too.
    env: { NEXQ_TEST_RUBY: '/nonexistent/ruby', NEXQ_TEST_SIDEKIQ: process.execPath },
    line: `skipped: Ruby's Sidekiq is missing (/nonexistent/ruby cannot require "sidekiq"): apt-get install ruby-sidekiq`,
  },
];

describe('suites that need Chromium or Sidekiq, where it is missing', function () {
  this.timeout(120_000);

  for (const { file, env, line } of CASES) {
    it(`${file} is reported as skipped, saying what to install`, async () => {
      const run = await runSuite(file, env);
      const output = run.stdout + run.stderr;
      expect(run.status, output).to.equal(0);
      expect(output.split('\n').map((l) => l.trim())).to.include(line);
      expect(output).to.match(/^\s*0 passing/m);
      expect(output).to.match(/^\s*[1-9]\d* pending/m);
      expect(output).not.to.match(/failing/);
    });

    it(`${file} fails under CI=true`, async () => {
      const run = await runSuite(file, { ...env, CI: 'true' });
      const output = run.stdout + run.stderr;
      expect(run.status, output).not.to.equal(0);
      expect(output).to.include(`${line.replace('skipped: ', '')} (CI=true: every suite must run)`);
      expect(output).to.match(/^\s*1 failing/m);
    });
  }
});
