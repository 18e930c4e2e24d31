// Running the built `nexq` command (or any program) as a real process, without blocking this one:
// a node may be running in the test process meanwhile.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './paths';

export const CLI = path.join(repoRoot, 'dist', 'src', 'cli', 'main.js');

export interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

export function runProcess(file: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, ...env } },
      (err, stdout, stderr) => {
        resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** The admin commands of `nexq` against one test Redis and namespace, each a real process. */
export function cliAgainst(target: () => { url: string; ns: string }) {
  function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
    const { url, ns } = target();
    return runProcess(process.execPath, [CLI, ...args], { REDIS_URL: url, NEXQ_NAMESPACE: ns, ...env }, 15_000);
  }
  /**
   * Runs the command, which must exit 0 with nothing on stderr but `nexq enqueue`'s warning that no
   * live node serves the job (these tests enqueue with no node running); its stdout.
   */
  async function ok(args: string[]): Promise<string> {
    const result = await cli(args);
    const stderr = result.stderr.replace(/^nexq: warning: no live node .*\n/gm, '');
    if (result.status !== 0 || stderr !== '')
      throw new Error(`nexq ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
    return result.stdout;
  }
  const json = async (args: string[]) => JSON.parse(await ok([...args, '--json']));
  return { cli, ok, json };
}
