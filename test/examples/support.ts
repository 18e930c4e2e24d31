// The files under examples/ as a user runs them (`node examples/<file>`, the library found by the
// package's own name), and the fenced code blocks of README.md and docs/*.md they are shown in.
import { ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../support/paths';
import { waitFor } from '../support/node';

export const examplesDir = path.join(repoRoot, 'examples');

/** Every file under examples/, as a path relative to it (`jobs/HardWorker.js`). */
export function exampleFiles(dir = examplesDir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? exampleFiles(path.join(dir, entry.name)).map((file) => `${entry.name}/${file}`)
      : [entry.name],
  );
}

export interface CodeBlock {
  /** The document, relative to the repository root, and the line of the opening fence. */
  where: string;
  lang: string;
  /** The lines between the fences, joined by newlines, without a final one. */
  text: string;
}

/** The fenced code blocks of README.md and docs/*.md. */
export function documentedBlocks(): CodeBlock[] {
  const docs = [
    'README.md',
    ...readdirSync(path.join(repoRoot, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  return docs.flatMap((doc) => {
    const blocks: CodeBlock[] = [];
    let open: { line: number; lang: string; lines: string[] } | undefined;
    readFileSync(path.join(repoRoot, doc), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (line.startsWith('```')) {
          if (open) blocks.push({ where: `${doc}:${open.line}`, lang: open.lang, text: open.lines.join('\n') });
          open = open ? undefined : { line: i + 1, lang: line.slice(3).trim(), lines: [] };
        } else open?.lines.push(line);
      });
    if (open) throw new Error(`${doc}:${open.line}: a code block is never closed`);
    return blocks;
  });
}

/** The file under examples/ a block shows: its first line is a comment naming it (`// jobs/HardWorker.js — ...`). */
export function fileNamedBy(block: CodeBlock): string | undefined {
  return /^(?:\/\/|#) ([\w/-]+\.\w+)/.exec(block.text)?.[1];
}

/** An example started with `node`, its output collected. */
export class ExampleProcess {
  output = '';
  /** Its exit code, once it exited and its output is read to the end. */
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  /** `file` under examples/ (or an absolute path), with `args`, run in `cwd`. */
  constructor(file: string, env: NodeJS.ProcessEnv, args: string[] = [], cwd = examplesDir) {
    const child = spawn(process.execPath, [path.resolve(examplesDir, file), ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d) => (this.output += String(d)));
    child.stderr.on('data', (d) => (this.output += String(d)));
    this.exited = new Promise((resolve) => child.once('close', (code) => resolve(code)));
    this.child = child;
  }

  /** Resolves to the first match of `pattern` in the output, once it is there. */
  async waitForOutput(pattern: RegExp, timeoutMs = 15_000): Promise<RegExpExecArray> {
    try {
      return await waitFor(() => pattern.exec(this.output), timeoutMs, String(pattern));
    } catch (err) {
      throw new Error(`${(err as Error).message} in the example's output:\n${this.output}`);
    }
  }

  kill(signal: NodeJS.Signals): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }
}

/** Runs an example to its end; resolves to its exit code and output. */
export async function runExample(
  file: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; output: string }> {
  const example = new ExampleProcess(file, env);
  const timer = setTimeout(() => example.kill('SIGKILL'), 20_000);
  const code = await example.exited;
  clearTimeout(timer);
  return { code, output: example.output };
}
