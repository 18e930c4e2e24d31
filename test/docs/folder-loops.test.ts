// `npm run check:imports` folds modules into folders and fails on a loop between folders
// (scripts/folder-loops.mjs): files that each obey the layers can still leave two folders leaning
// on each other, as src/node/ once did with every actor.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../support/paths';

function check(imports: Record<string, string[]>): { status: number | null; output: string } {
  const modules = Object.entries(imports).map(([source, targets]) => ({
    source,
    dependencies: targets.map((resolved) => ({ resolved })),
  }));
  const run = spawnSync('node', [path.join(repoRoot, 'scripts', 'folder-loops.mjs')], {
    input: JSON.stringify({ modules }),
    encoding: 'utf8',
  });
  return { status: run.status, output: run.stdout + run.stderr };
}

describe('the folder loop check', () => {
  it('passes folders that import one way, whatever the files inside a folder do', () => {
    const result = check({
      'src/actors/manager.ts': ['src/run/settle.ts', 'src/actors/dispatcher.ts'],
      'src/actors/dispatcher.ts': ['src/actors/manager.ts'],
      'src/run/settle.ts': ['src/redis/keys.ts', 'config/defaults.ts'],
      'src/nexq.ts': ['src/node/node.ts'],
      'src/node/node.ts': ['src/errors.ts'],
    });
    expect(result.status, result.output).to.equal(0);
  });

  it('fails two folders that lean on each other through different files, and names the imports', () => {
    const result = check({
      'src/node/node.ts': ['src/actors/manager.ts'],
      'src/node/context.ts': ['src/redis/keys.ts'],
      'src/actors/manager.ts': ['src/node/context.ts'],
    });
    expect(result.status).to.equal(1);
    expect(result.output).to.match(/in a loop: (src\/node\/, src\/actors\/|src\/actors\/, src\/node\/)\n/);
    expect(result.output).to.include('src/actors/manager.ts -> src/node/context.ts');
  });
});
