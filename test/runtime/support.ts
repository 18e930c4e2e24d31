// Test helpers for the actor runtime and the supervisors: a Probe actor that records what happens
// to it into a (possibly shared) log, and small promise utilities.
import { Actor, ActorOptions, describeReason, ExitReason } from '../../src/runtime';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Never settles: a handler or terminate that hangs. */
export const forever = (): Promise<never> => new Promise<never>(() => {});

/** Polls `cond` until it holds; fails the test if it does not within `timeoutMs`. */
export async function eventually(cond: () => boolean, timeoutMs = 1000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(1);
  }
}

/**
 * Attaches a handler at once (so no unhandled rejection is reported) and resolves with the
 * rejection reason; rejects if `promise` fulfils instead.
 */
export function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${describeReason(value)}`);
    },
    (err: unknown) => err,
  );
}

export type ProbeCall =
  | { type: 'echo'; value: unknown; delayMs?: number }
  | { type: 'crash'; error: unknown; delayMs?: number }
  | { type: 'hang' };

export type ProbeCast =
  | { type: 'record'; value: string; delayMs?: number }
  | { type: 'crash'; error: unknown }
  | { type: 'stop'; reason: ExitReason };

export interface ProbeOptions extends ActorOptions {
  /** Used in log entries; defaults to the actor's name. */
  label?: string;
  /** Shared event log; each probe gets its own when not given. */
  log?: string[];
  initDelayMs?: number;
  /** When set, `init` throws this (after `initDelayMs`). */
  initError?: unknown;
  /** How long `terminate` takes; Infinity makes it hang. */
  terminateDelayMs?: number;
}

/**
 * Records `init:L`, `call:L:V`, `cast:L:V`, `info:L`, `terminate-start:L:R` and `terminate:L:R`
 * (R is the described exit reason) into its log.
 */
export class Probe extends Actor<ProbeCall, ProbeCast, unknown> {
  readonly label: string;
  readonly log: string[];
  readonly infos: unknown[] = [];
  readonly terminateReasons: ExitReason[] = [];

  constructor(private readonly opts: ProbeOptions = {}) {
    super(opts);
    this.label = opts.label ?? this.name;
    this.log = opts.log ?? [];
  }

  protected override async init(): Promise<void> {
    if (this.opts.initDelayMs) await sleep(this.opts.initDelayMs);
    if ('initError' in this.opts) throw this.opts.initError;
    this.log.push(`init:${this.label}`);
  }

  protected override async handleCall(msg: ProbeCall): Promise<unknown> {
    switch (msg.type) {
      case 'echo':
        if (msg.delayMs) await sleep(msg.delayMs);
        this.log.push(`call:${this.label}:${describeReason(msg.value)}`);
        return msg.value;
      case 'crash':
        if (msg.delayMs) await sleep(msg.delayMs);
        throw msg.error;
      case 'hang':
        return forever();
    }
  }

  protected override async handleCast(msg: ProbeCast): Promise<void> {
    switch (msg.type) {
      case 'record':
        if (msg.delayMs) await sleep(msg.delayMs);
        this.log.push(`cast:${this.label}:${msg.value}`);
        return;
      case 'crash':
        throw msg.error;
      case 'stop':
        this.stopSelf(msg.reason);
        return;
    }
  }

  protected override handleInfo(msg: unknown): void {
    this.infos.push(msg);
    this.log.push(`info:${this.label}`);
  }

  protected override async terminate(reason: ExitReason): Promise<void> {
    this.terminateReasons.push(reason);
    this.log.push(`terminate-start:${this.label}:${describeReason(reason)}`);
    const delay = this.opts.terminateDelayMs;
    if (delay === Infinity) await forever();
    else if (delay) await sleep(delay);
    this.log.push(`terminate:${this.label}:${describeReason(reason)}`);
  }
}

/** Only the entries of `log` that start with one of `prefixes` (e.g. 'init:', 'terminate:'). */
export function only(log: string[], ...prefixes: string[]): string[] {
  return log.filter((entry) => prefixes.some((p) => entry.startsWith(p)));
}
