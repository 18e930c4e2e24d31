// A small flag parser: `--name value`, `--name=value`, `--flag`; anything else is positional.
import { NexqError } from '../../config/nexq-error';
export class UsageError extends NexqError {
  static override readonly code = 'CLI_USAGE';
  override readonly name = 'UsageError';
}

export interface ParsedArgs {
  positional: string[];
  flags: Map<string, string | true>;
}

export function parseArgs(argv: string[], booleanFlags: Set<string>): ParsedArgs {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (eq >= 0) flags.set(name, arg.slice(eq + 1));
    else if (booleanFlags.has(name)) flags.set(name, true);
    else if (i + 1 < argv.length) flags.set(name, argv[++i]);
    else throw new UsageError(`--${name} needs a value`);
  }
  return { positional, flags };
}

/** Refuses flags the command does not know, naming the first one. */
export function checkFlags(args: ParsedArgs, known: string[]): void {
  for (const name of args.flags.keys()) {
    if (!known.includes(name)) throw new UsageError(`unknown option --${name} (see --help)`);
  }
}
