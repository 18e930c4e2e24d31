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
