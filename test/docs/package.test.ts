// What `npm pack` ships and what installing nexq's tree asks of Node: the LICENSE, the docs and
// examples the README links to (so its links work inside the package), no test or bench code; and
// no package, dev ones included, that needs a newer Node than the README and package.json say.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { repoRoot } from '../support/paths';
import { linkTargets } from './links.test';

const semver = createRequire(__filename)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};
const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));

describe('the package', function () {
  this.timeout(60_000);

  it('ships the LICENSE, the docs and the examples, every relative link of its Markdown leads into it', () => {
    // --ignore-scripts: the build is not what this looks at (prepare would run tsc again).
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const files = new Set((JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0].files.map((f) => f.path));
    for (const file of ['LICENSE', 'README.md', 'package.json', 'examples/enqueue.js', 'examples/jobs/HardWorker.js'])
      expect(files, file).to.include(file);
    const docs = readdirSync(path.join(repoRoot, 'docs')).filter((f) => f.endsWith('.md'));
    for (const doc of docs) expect(files, `docs/${doc}`).to.include(`docs/${doc}`);
    expect([...files].filter((f) => /^(test|bench|dist\/test|dist\/bench)\//.test(f) && f !== 'bench/README.md')).to.be
      .empty;
    const shipped = (target: string) =>
      files.has(target) || [...files].some((f) => f.startsWith(`${target.replace(/\/$/, '')}/`));
    for (const doc of ['README.md', ...docs.map((f) => `docs/${f}`)].filter((d) => files.has(d))) {
      for (const link of linkTargets(readFileSync(path.join(repoRoot, doc), 'utf8'))) {
        if (/^[a-z]+:/.test(link) || link.startsWith('#')) continue;
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(doc), link.split('#')[0]));
        expect(shipped(target), `${doc} links to ${link}, which the package does not ship`).to.be.true;
      }
    }
  });

  it("types 'nexq' and 'nexq/testing' for a TypeScript app under every moduleResolution, node10 too", () => {
    // node10 (`"moduleResolution": "node"`, many apps' setting) reads no `exports`: typesVersions.
    const app = mkdtempSync(path.join(os.tmpdir(), 'nexq-types-'));
    try {
      mkdirSync(path.join(app, 'node_modules'));
      symlinkSync(repoRoot, path.join(app, 'node_modules', 'nexq'), 'dir');
      writeFileSync(
        path.join(app, 'app.ts'),
        "import { Nexq } from 'nexq';\nimport { createTestNexq } from 'nexq/testing';\n" +
          'export const made: [typeof Nexq, ReturnType<typeof createTestNexq>] | undefined = undefined;\n',
      );
      const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
      for (const [module, resolution] of [
        ['commonjs', 'node'],
        ['nodenext', 'nodenext'],
        ['esnext', 'bundler'],
      ])
        execFileSync(
          process.execPath,
          [
            tsc,
            '--noEmit',
            '--strict',
            '--skipLibCheck',
            '--module',
            module,
            '--moduleResolution',
            resolution,
            'app.ts',
          ],
          { cwd: app, stdio: 'pipe' },
        );
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });

  it('installs nothing that needs a newer Node than it says: engines for the library, devEngines to develop it', () => {
    const runtime = semver.minVersion(manifest.engines.node)!.version;
    const develop = semver.minVersion(manifest.devEngines.runtime.version)!.version;
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    expect(readme).to.include(`needs Node ${runtime.split('.')[0]} or later`);
    expect(readme).to.include(`Node ${develop.split('.').slice(0, 2).join('.')} or later`);
    const lock = JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8'));
    const refused: string[] = [];
    for (const [where, entry] of Object.entries<{ dev?: boolean; optional?: boolean; engines?: { node?: string } }>(
      lock.packages,
    )) {
      const wanted = entry.engines?.node;
      if (!where || !wanted) continue;
      const node = entry.dev ? develop : runtime;
      if (!semver.satisfies(node, wanted)) refused.push(`${where} needs node ${wanted}, not ${node}`);
    }
    expect(refused).to.deep.equal([]);
  });
});
