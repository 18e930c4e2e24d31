// Every code sample of README.md and docs/*.md is checked: a block naming a file under examples/
// is that file, byte for byte (examples.test.ts runs the files); a JavaScript fragment is a set of
// options nexq accepts; a shell line is an npm script, a file under examples/ run with node, or a
// `nexq start` the CLI accepts. Blocks
// without a language are text (the supervision tree, the CLI's usage) and are not checked.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { defaults } from '../../config/defaults';
import { resolveConfig } from '../../config/validate';
import { parseArgs } from '../../src/cli/args';
import { startConfig } from '../../src/cli/start';
import { repoRoot } from '../support/paths';
import { CodeBlock, documentedBlocks, exampleFiles, examplesDir, fileNamedBy } from './support';

const blocks = documentedBlocks();
const NPM_BUILTINS = ['install', 'ci'];

/** A fragment like `periodic: [...]` as the options object it belongs in. */
function optionsOf(block: CodeBlock): Record<string, unknown> {
  return vm.runInNewContext(`({\n${block.text}\n})`, {}, { filename: block.where });
}

/** `VAR=value ... nexq start --flag value ...` run through the CLI's own parsing and validation. */
function checkNexqStart(line: string, where: string): void {
  const words = line.split(/\s+/);
  const env: NodeJS.ProcessEnv = {};
  while (/^[A-Z_]+=/.test(words[0])) {
    const [name, ...value] = words.shift()!.split('=');
    env[name] = value.join('=');
  }
  expect(words.slice(0, 2), `${where}: ${line}`).to.deep.equal(['nexq', 'start']);
  startConfig(parseArgs(words.slice(2), new Set(['local-redis', 'help'])), env);
}

describe('code samples in README.md and docs/', () => {
  it('finds the samples (the parser reads the README and docs/)', () => {
    expect(blocks.filter((b) => b.where.startsWith('README.md')).length).to.be.above(3);
    expect(blocks.filter((b) => b.where.startsWith('docs/')).length).to.be.above(5);
  });

  for (const block of blocks) {
    const file = fileNamedBy(block);
    if (file) {
      it(`${block.where} is examples/${file}`, () => {
        expect(exampleFiles(), `${block.where} names examples/${file}, which does not exist`).to.include(file);
        expect(block.text).to.equal(readFileSync(path.join(examplesDir, file), 'utf8').replace(/\n$/, ''));
      });
    } else if (block.lang === 'js') {
      it(`${block.where} holds options nexq accepts`, () => {
        const options = optionsOf(block);
        expect(Object.keys(defaults())).to.include.members(Object.keys(options));
        resolveConfig(options);
      });
    } else if (block.lang === 'sh') {
      it(`${block.where} runs npm scripts and nexq start lines the CLI accepts`, () => {
        const scripts = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).scripts;
        const lines = block.text
          .split('\n')
          .map((line) => line.replace(/\s+#.*$/, '').trim())
          .filter(Boolean);
        for (const command of lines.flatMap((line) => line.split('&&').map((part) => part.trim()))) {
          const npm = /^npm (?:run )?(\S+)$/.exec(command);
          const example = /^node examples\/(\S+)$/.exec(command);
          if (npm) expect([...NPM_BUILTINS, ...Object.keys(scripts)], `${block.where}: ${command}`).to.include(npm[1]);
          else if (example) expect(exampleFiles(), `${block.where}: ${command}`).to.include(example[1]);
          else checkNexqStart(command, block.where);
        }
      });
    } else if (block.lang !== '') {
      it(`${block.where} (${block.lang}) is a file under examples/`, () => {
        expect.fail(`${block.where}: a ${block.lang} block must start with a comment naming its file under examples/`);
      });
    }
  }
});
