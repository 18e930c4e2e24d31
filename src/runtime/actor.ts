// The actor: a serial mailbox with Erlang/OTP's gen_server shape.
//
// Responsibilities:
//  1. Handle one message at a time, to completion (its awaits included), in arrival order.
//  2. `call` (request/reply with a timeout), `cast` (fire and forget), `send` (info), timers.
//  3. Crash on any throw: run `terminate(reason)`, fail pending calls, tell every monitor why.
//  4. Stop on request: finish the message in hand, run `terminate`, and exit with the reason given;
//     an actor that does not finish within its stop timeout is killed.
// One file: one class, whose mailbox, calls, monitors and stop all work on its private state.
import { ActorExitedError, CallTimeoutError, describeReason } from './errors';
import type { Registry } from './registry';

/**
 * Why an actor exited: `normal` and `shutdown` are clean exits; `killed`, or anything else (an
 * Error it threw, say), is a crash. Any value can be a reason, hence `unknown`.
 */
export type ExitReason = unknown;

export function isCleanExit(reason: ExitReason): boolean {
  return reason === 'normal' || reason === 'shutdown';
}

/** Delivered as an info message to an actor that monitors another when the other exits. */
export interface Down {
  readonly type: 'DOWN';
  readonly ref: number;
  readonly actor: AnyActor;
  readonly reason: ExitReason;
}

export function isDown(msg: unknown): msg is Down {
  return typeof msg === 'object' && msg !== null && 'type' in msg && msg.type === 'DOWN';
}

export interface ActorOptions {
  /** Shown in logs and errors; registered in `registry` when both are given. */
  name?: string;
  registry?: Registry;
}

type Envelope =
  | { kind: 'call'; msg: unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void; timer?: NodeJS.Timeout }
  | { kind: 'cast'; msg: unknown }
  | { kind: 'info'; msg: unknown };

export type ActorState = 'new' | 'starting' | 'running' | 'stopping' | 'exited';
type State = ActorState;

let nextActorId = 1;
let nextMonitorRef = 1;

/** Any actor, whatever messages it takes: what supervisors, monitors and DOWN notices hold. */
export type AnyActor = Actor<unknown, unknown, unknown>;

export const DEFAULT_CALL_TIMEOUT_MS = 5000;
export const DEFAULT_STOP_TIMEOUT_MS = 5000;

export abstract class Actor<Call = never, Cast = never, Info = never> {
  readonly id = nextActorId++;
  readonly name: string;
  readonly exited: Promise<ExitReason>;

  /** Where the actor is registered under its name, when it is. */
  readonly #registration?: { registry: Registry; name: string };
  #state: State = 'new';
  #mailbox: Envelope[] = [];
  #inHand?: Envelope;
  #draining = false;
  #stopRequest?: ExitReason;
  #exitReason: ExitReason;
  #resolveExited!: (reason: ExitReason) => void;
  readonly #watchers = new Map<number, (down: Down) => void>();
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(options: ActorOptions = {}) {
    this.name = options.name ?? `${this.constructor.name}#${this.id}`;
    if (options.registry && options.name) this.#registration = { registry: options.registry, name: options.name };
    this.exited = new Promise((resolve) => (this.#resolveExited = resolve));
  }

  /** Runs `init`, then opens the mailbox. Rejects (and the actor is exited) if `init` throws. */
  static async start<A extends AnyActor>(actor: A): Promise<A> {
    await actor.#boot();
    return actor;
  }

  // ---- hooks for subclasses -------------------------------------------------------------------

  protected init(): Promise<void> | void {}
  protected handleCall(msg: Call): unknown {
    throw new Error(`${this.name} got an unexpected call: ${describeReason(msg)}`);
  }
  protected handleCast(msg: Cast): Promise<void> | void {
    throw new Error(`${this.name} got an unexpected cast: ${describeReason(msg)}`);
  }
  /** Info messages: `send`, timers and monitors' DOWN notices. Unknown infos are ignored, as in OTP. */
  protected handleInfo(_msg: Info | Down): Promise<void> | void {}
  protected terminate(_reason: ExitReason): Promise<void> | void {}

  // ---- messaging ------------------------------------------------------------------------------

  get alive(): boolean {
    return this.#state === 'starting' || this.#state === 'running';
  }

  /** Where the actor is in its life: new, starting, running, stopping or exited. */
  get state(): ActorState {
    return this.#state;
  }

  call<R = unknown>(msg: Call, timeoutMs: number = DEFAULT_CALL_TIMEOUT_MS): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (!this.alive || this.#stopRequest !== undefined) {
        reject(new ActorExitedError(this.name, this.#exitReason ?? 'stopping'));
        return;
      }
      const envelope: Envelope = { kind: 'call', msg, resolve: resolve as (v: unknown) => void, reject };
      if (Number.isFinite(timeoutMs)) {
        envelope.timer = setTimeout(() => {
          envelope.timer = undefined;
          envelope.resolve = envelope.reject = () => {};
          reject(new CallTimeoutError(this.name, timeoutMs));
        }, timeoutMs);
      }
      this.#enqueue(envelope);
    });
  }

  cast(msg: Cast): void {
    if (this.alive) this.#enqueue({ kind: 'cast', msg });
  }

  send(msg: Info | Down): void {
    if (this.alive) this.#enqueue({ kind: 'info', msg });
  }

  /**
   * Sends `msg` to this actor as info after `ms`. Timers die with the actor, and an exited actor
   * arms none: a handler still running after a kill (its await answered late) would otherwise keep
   * the process alive for `ms` after its node stopped, for a message no one reads.
   */
  sendAfter(msg: Info, ms: number): NodeJS.Timeout {
    if (this.#state === 'exited') {
      const inert = setTimeout(() => {}, 0);
      clearTimeout(inert);
      return inert;
    }
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.send(msg);
    }, ms);
    this.#timers.add(timer);
    return timer;
  }

  cancelTimer(timer: NodeJS.Timeout | undefined): void {
    if (!timer) return;
    clearTimeout(timer);
    this.#timers.delete(timer);
  }

  // ---- monitors -------------------------------------------------------------------------------

  /** From now on this actor gets a DOWN info when `target` exits (at once if it already has). */
  monitor(target: AnyActor): number {
    return target.watch((down) => this.send(down));
  }

  demonitor(target: AnyActor, ref: number): void {
    target.#watchers.delete(ref);
  }

  /** Low-level monitor: `onDown` runs once when this actor exits. Returns the monitor ref. */
  watch(onDown: (down: Down) => void): number {
    const ref = nextMonitorRef++;
    if (this.#state === 'exited') {
      const reason = this.#exitReason;
      queueMicrotask(() => onDown({ type: 'DOWN', ref, actor: this, reason }));
    } else {
      this.#watchers.set(ref, onDown);
    }
    return ref;
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  /**
   * Asks the actor to exit with `reason` once the message in hand is done; queued messages are
   * dropped (their callers get ActorExitedError). If `terminate` has not finished after
   * `timeoutMs`, the actor is killed. Resolves with the reason it exited with.
   */
  stop(reason: ExitReason = 'normal', timeoutMs: number = DEFAULT_STOP_TIMEOUT_MS): Promise<ExitReason> {
    if (this.#state === 'exited') return this.exited;
    if (this.#state === 'new') {
      this.#finish(reason);
      return this.exited;
    }
    if (this.#stopRequest === undefined) {
      this.#stopRequest = reason;
      if (!this.#draining && this.#state === 'running') this.#background(this.#runTermination(reason));
    }
    let timer: NodeJS.Timeout | undefined;
    if (Number.isFinite(timeoutMs)) {
      timer = setTimeout(() => this.kill(), timeoutMs);
    }
    return this.exited.finally(() => clearTimeout(timer));
  }

  /** Exits at once, without running `terminate`. What the actor was awaiting is abandoned. */
  kill(reason: ExitReason = 'killed'): void {
    if (this.#state !== 'exited') this.#finish(reason);
  }

  /** True once a stop was asked for: a long handler can check it and give up early. */
  protected get stopping(): boolean {
    return this.#stopRequest !== undefined || !this.alive;
  }

  /** For use inside a handler: exit with `reason` after the current message. */
  protected stopSelf(reason: ExitReason = 'normal'): void {
    if (this.#stopRequest === undefined) this.#stopRequest = reason;
  }

  // ---- internals ------------------------------------------------------------------------------

  async #boot(): Promise<void> {
    if (this.#state !== 'new') throw new Error(`${this.name} was already started`);
    this.#state = 'starting';
    try {
      this.#registration?.registry.register(this.#registration.name, this);
      await this.init();
    } catch (err) {
      this.#finish(err);
      throw err;
    }
    if (!this.#stateIs('starting')) throw new ActorExitedError(this.name, this.#exitReason); // killed during init
    this.#state = 'running';
    if (this.#stopRequest !== undefined) this.#background(this.#runTermination(this.#stopRequest));
    else this.#kick();
  }

  #enqueue(envelope: Envelope): void {
    this.#mailbox.push(envelope);
    this.#kick();
  }

  #kick(): void {
    if (!this.#draining && this.#state === 'running') {
      this.#draining = true;
      this.#background(this.#drain());
    }
  }

  /**
   * The mailbox loop and the termination run on their own; both catch what the actor's code throws.
   * Should one still fail (a monitor's callback threw), the actor exits with that error as its
   * reason, as on a crash, rather than leave a rejection no one handles.
   */
  #background(step: Promise<void>): void {
    step.catch((err: unknown) => this.kill(err));
  }

  async #drain(): Promise<void> {
    while (this.#state === 'running') {
      if (this.#stopRequest !== undefined) return this.#runTermination(this.#stopRequest);
      const envelope = this.#mailbox.shift();
      if (!envelope) break;
      this.#inHand = envelope;
      let crash: { reason: unknown } | undefined;
      try {
        await this.#dispatch(envelope);
      } catch (err) {
        crash = { reason: err };
      }
      if (this.#inHand === envelope) this.#inHand = undefined;
      if (crash) return this.#runTermination(crash.reason);
    }
    this.#draining = false;
  }

  /**
   * The state read through a call: it changes while a hook awaits (a kill, a stop), which the
   * type checker's narrowing after an assignment cannot see.
   */
  #stateIs(state: State): boolean {
    return this.#state === state;
  }

  async #dispatch(envelope: Envelope): Promise<void> {
    switch (envelope.kind) {
      case 'call': {
        let reply: unknown;
        try {
          reply = await this.handleCall(envelope.msg as Call);
        } catch (err) {
          if (envelope.timer) clearTimeout(envelope.timer);
          envelope.reject(new ActorExitedError(this.name, err));
          throw err;
        }
        if (envelope.timer) clearTimeout(envelope.timer);
        envelope.resolve(reply);
        return;
      }
      case 'cast':
        return this.handleCast(envelope.msg as Cast);
      case 'info':
        return this.handleInfo(envelope.msg as Info);
    }
  }

  async #runTermination(reason: ExitReason): Promise<void> {
    if (this.#state !== 'running' && this.#state !== 'starting') return;
    this.#state = 'stopping';
    try {
      await this.terminate(reason);
    } catch {
      // A throw in terminate does not change why the actor exited.
    }
    if (this.#stateIs('stopping')) this.#finish(reason); // not killed meanwhile
  }

  #finish(reason: ExitReason): void {
    this.#state = 'exited';
    this.#exitReason = reason;
    this.#draining = false;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    // The message in hand (if killed mid-handler) is abandoned: its caller is failed too.
    const pending = this.#inHand ? [this.#inHand, ...this.#mailbox] : this.#mailbox;
    this.#inHand = undefined;
    this.#mailbox = [];
    for (const envelope of pending) {
      if (envelope.kind !== 'call') continue;
      if (envelope.timer) clearTimeout(envelope.timer);
      envelope.reject(new ActorExitedError(this.name, reason));
    }
    this.#registration?.registry.unregister(this.#registration.name, this);
    const watchers = [...this.#watchers];
    this.#watchers.clear();
    for (const [ref, onDown] of watchers) onDown({ type: 'DOWN', ref, actor: this, reason });
    this.#resolveExited(reason);
  }
}
