#!/usr/bin/env node
// The `nexq` command. Bad input gets one clear line on stderr and exit code 2, never a stack trace.
import { ConfigError } from '../../config/validate';
import { parseArgs, UsageError } from './args';
import { runStart } from './start';

const HELP = `Usage: nexq <command> [options]

Commands:
  start      run a node in the foreground (nexq start --help)

Run 'nexq <command> --help' for a command's options.`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return command ? 0 : 2;
  }
  switch (command) {
    case 'start':
      return runStart(parseArgs(rest, new Set(['local-redis', 'help'])));
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)} (see nexq --help)`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      const usage = err instanceof UsageError || err instanceof ConfigError;
      process.stderr.write(`nexq: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(usage ? 2 : 1);
    },
  );
}
