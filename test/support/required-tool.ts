// Suites that need a program besides redis-server (Chromium for the dashboard, Ruby's Sidekiq for
// interop). Without it a suite is reported as skipped, with one line saying what to install, so a
// fresh machine's `npm test` says what it did not test; under CI (CI=true) a missing tool fails the
// suite instead, since CI installs them all (.ci/run).
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

export interface RequiredTool {
  /** What the suite needs, for the message: `Chromium`. */
  name: string;
  /** Why it is missing (`no executable /usr/bin/chromium`), or undefined when it is there. */
  missing(): string | undefined;
  /** The command that installs it: `apt-get install chromium`. */
  install: string;
}

/** CI runners set CI=true (GitHub Actions, GitLab, most others). */
export function underCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether `command` runs: an executable path, or a name found on the PATH. */
export function onPath(command: string): boolean {
  if (command.includes('/')) return isExecutable(command);
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => dir !== '' && isExecutable(path.join(dir, command)));
}

/** `ruby -e <code>` with `ruby` the given command: whether it exits 0. */
export function rubyRuns(ruby: string, code: string): boolean {
  return spawnSync(ruby, ['-e', code], { stdio: 'ignore', timeout: 20_000 }).status === 0;
}

/** Call inside a `describe`, before the hooks that use the tool. */
export function requireTool(tool: RequiredTool): void {
  before(function () {
    const why = tool.missing();
    if (why === undefined) return;
    const message = `${tool.name} is missing (${why}): ${tool.install}`;
    if (underCi()) throw new Error(`${message} (CI=true: every suite must run)`);
    console.log(`    skipped: ${message}`);
    this.skip();
  });
}
