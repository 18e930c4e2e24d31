#!/usr/bin/env node
// The `nexq` command. Bad input gets one clear line on stderr and exit code 2, never a stack trace;
// with --json that line is JSON: {"error":{"code","message"}}, the code a NexqError's.
import { NexqError } from '../../config/nexq-error';
import { ConfigError } from '../../config/validate';
import { NEXQ_VERSION } from '../../config/version';
import { InvalidJobError } from '../job/job';
import { parseArgs, UsageError } from './args';
import { BOOLEAN_FLAGS, checkCommandFlags, Command, outputFor } from './commands/common';
import { batchesCommand } from './commands/batches';
import { drainCommand } from './commands/drain';
import { enqueueCommand } from './commands/enqueue';
import { deadCommand, jobsCommand, retriesCommand, scheduledCommand } from './commands/jobs';
import { clearCommand } from './commands/clear';
import { deleteCommand, killCommand, retryCommand, showCommand } from './commands/manage';
import { pauseCommand, resumeCommand } from './commands/pause';
import { groupsCommand } from './commands/groups';
import { positionCommand } from './commands/position';
import { processesCommand, quietCommand, stopCommand } from './commands/processes';
import { schedulesCommand } from './commands/schedules';
import { queuesCommand, statsCommand } from './commands/stats';
import { runStart } from './start';
import { wrapHelp } from './wrap';

const COMMANDS: Record<string, Command> = {
  enqueue: enqueueCommand,
  stats: statsCommand,
  queues: queuesCommand,
  groups: groupsCommand,
  jobs: jobsCommand,
  scheduled: scheduledCommand,
  retries: retriesCommand,
  dead: deadCommand,
  retry: retryCommand,
  kill: killCommand,
  delete: deleteCommand,
  clear: clearCommand,
  show: showCommand,
  position: positionCommand,
  pause: pauseCommand,
  resume: resumeCommand,
  processes: processesCommand,
  schedules: schedulesCommand,
  quiet: quietCommand,
  stop: stopCommand,
  drain: drainCommand,
  batches: batchesCommand,
};

const HELP = `Usage: nexq <command> [options]

Commands:
  start      run a node in the foreground (nexq start --help)
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
  .join('\n')}

Every command but start takes --redis URL, --namespace NS, --config FILE (or REDIS_URL,
NEXQ_NAMESPACE) and --json. Run 'nexq <command> --help' for a command's options, and
'nexq --version' for the version.`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === 'version') {
    process.stdout.write(`nexq ${NEXQ_VERSION}\n`);
    return 0;
  }
  if (!command || command === '--help' || command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return command ? 0 : 2;
  }
  if (command === 'start') return runStart(parseArgs(rest, new Set(['local-redis', 'help'])));
  const cmd = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!cmd) throw new UsageError(`unknown command ${JSON.stringify(command)} (see nexq --help)`);
  const args = parseArgs(rest, BOOLEAN_FLAGS);
  if (args.flags.has('help')) {
    process.stdout.write(`${wrapHelp(cmd.help)}\n`);
    return 0;
  }
  checkCommandFlags(args, cmd);
  return cmd.run(args, outputFor(args));
}

/** The one line an error prints on stderr: text, or with --json `{"error":{"code","message"}}`. */
export function errorLine(err: unknown, json: boolean): string {
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  // An error that is not a NexqError (a Redis reply, a bug) has no code of its own.
  const code = err instanceof NexqError ? err.code : 'UNEXPECTED';
  return json ? JSON.stringify({ error: { code, message } }) : `nexq: ${message}`;
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  main(argv).then(
    (code) => process.exit(code),
    (err: unknown) => {
      const usage = err instanceof UsageError || err instanceof ConfigError || err instanceof InvalidJobError;
      process.stderr.write(`${errorLine(err, argv.includes('--json'))}\n`);
      process.exit(usage ? 2 : 1);
    },
  );
}
