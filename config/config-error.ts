// The one error a bad option raises: which key, what it expects, what it got, and where it came from.
import { NexqError, type NexqErrorCode } from './nexq-error';
import { closestName } from './closest-name';

export class ConfigError extends NexqError {
  static override readonly code: NexqErrorCode = 'CONFIG_INVALID';
  override readonly name = 'ConfigError';
  constructor(
    readonly key: string,
    readonly expected: string,
    readonly got: unknown,
    readonly source?: string,
  ) {
    super(`invalid config: ${key}${source ? ` (from ${source})` : ''} must be ${expected} (got ${show(got)})`);
  }

  /** The same error, saying where the value came from (a file, an environment variable, a flag). */
  from(source: string): ConfigError {
    return new ConfigError(this.key, this.expected, this.got, source);
  }
}

/** An option nexq does not have: says which one was probably meant, or lists them. */
export class UnknownOptionError extends ConfigError {
  static override readonly code = 'CONFIG_UNKNOWN_OPTION';
  constructor(
    key: string,
    readonly known: readonly string[],
    source?: string,
  ) {
    super(key, 'a known option', key, source);
    const guess = closestName(key, known);
    this.message = `invalid config: ${key}${source ? ` (from ${source})` : ''} is not an option; ${guess ? `did you mean ${guess}?` : `the options are ${known.join(', ')}`}`;
  }

  override from(source: string): ConfigError {
    return new UnknownOptionError(this.key, this.known, source);
  }
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  try {
    const json = JSON.stringify(value) as string | undefined; // undefined for a function (lib.d.ts says string)
    return json ?? String(value);
  } catch {
    return String(value);
  }
}
