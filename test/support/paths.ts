// Paths the compiled tests (in dist/test/...) need back in the source tree.
import path from 'node:path';

/** dist/test/support -> the repository root. */
export const repoRoot = path.resolve(__dirname, '..', '..', '..');

/** The handler fixtures: plain .js/.mjs files, not compiled. */
export const fixturesJobs = path.join(repoRoot, 'test', 'fixtures', 'jobs');

export function fixture(file: string): string {
  return path.join(fixturesJobs, file);
}

/** Handler modules a node refuses at start (no perform, ...), kept out of fixturesJobs. */
export const brokenJobs = path.join(repoRoot, 'test', 'fixtures', 'broken-jobs');
