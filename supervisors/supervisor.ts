// The generic supervisor: starts children in order, restarts them by policy, stops them in reverse.
//
// Responsibilities:
//  1. Start the child specs in order; if one fails, stop those already started and fail to start.
//  2. When a child exits, decide by its restart type (permanent / transient / temporary) whether
//     to restart, and apply the strategy: one_for_one, rest_for_one or one_for_all.
//  3. Enforce restart intensity: more than `maxRestarts` in `maxSeconds` and the supervisor gives
//     up, stops its children and exits with RestartIntensityError, so its own parent decides.
//  4. On stop, stop the children in reverse start order, each within its shutdown timeout.
import {
  Actor,
  ActorOptions,
  ActorSnapshot,
  AnyActor,
  describeReason,
  Down,
  EXIT_TEXT_MAX,
  ExitReason,
  isCleanExit,
  isDown,
  isSnapshotting,
  recordRestart,
  restartsWithinWindow,
} from '../src/runtime';
import { RestartIntensity, RestartIntensityError } from './restart-intensity';

export type RestartType = 'permanent' | 'transient' | 'temporary';
export type Strategy = 'one_for_one' | 'rest_for_one' | 'one_for_all';

export interface ChildSpec {
  id: string;
  /** Builds and starts the child; resolves once its `init` is done (use `Actor.start`). */
  start: () => Promise<AnyActor>;
  restart?: RestartType;
  /** How long the child's `terminate` may take on stop before it is killed. Default 5000. */
  shutdownMs?: number;
}

export interface SupervisorOptions extends ActorOptions {
  strategy?: Strategy;
  maxRestarts?: number;
  maxSeconds?: number;
  children: ChildSpec[];
  /** Told of every child exit and restart, for logs. */
  onEvent?: (event: SupervisorEvent) => void;
}

export type SupervisorEvent =
  | { type: 'child_exited'; id: string; reason: ExitReason }
  | { type: 'child_restarted'; id: string }
  | { type: 'gave_up'; id: string; reason: ExitReason };

export type SupervisorCall = { type: 'which_children' };

interface Running {
  spec: ChildSpec;
  /** Set while the child runs: the actor and this supervisor's monitor of it. */
  running?: { actor: AnyActor; ref: number };
  /** Epoch ms of its restarts in the last hour, and why it last exited (for the dashboard's tree). */
  restarts: number[];
  lastExit?: string;
}

export const DEFAULT_SHUTDOWN_MS = 5000;

export class Supervisor extends Actor<SupervisorCall, never, Down> {
  private readonly strategy: Strategy;
  private readonly intensity: RestartIntensity;
  private readonly children: Running[];
  private readonly onEvent: (event: SupervisorEvent) => void;

  constructor(options: SupervisorOptions) {
    super(options);
    this.strategy = options.strategy ?? 'one_for_one';
    this.intensity = new RestartIntensity(options.maxRestarts ?? 3, options.maxSeconds ?? 5);
    this.children = options.children.map((spec) => ({ spec, restarts: [] }));
    this.onEvent = options.onEvent ?? (() => {});
    const ids = new Set<string>();
    for (const { id } of options.children) {
      if (ids.has(id)) throw new Error(`${this.name}: two children share the id ${id}`);
      ids.add(id);
    }
  }

  /** The running child with this id, if any. */
  child<A extends AnyActor>(id: string): A | undefined {
    return this.children.find((c) => c.spec.id === id)?.running?.actor as A | undefined;
  }

  /** This supervisor and its children: states, restarts in the last hour, nested supervisors. */
  snapshot(): ActorSnapshot {
    return {
      id: this.name,
      state: this.state,
      restarts: 0,
      strategy: this.strategy,
      children: this.children.map(({ spec, running, restarts, lastExit }) => {
        const own = running && isSnapshotting(running.actor) ? running.actor.snapshot() : undefined;
        return {
          ...own,
          id: spec.id,
          state: running?.actor.state ?? 'down',
          restarts: restartsWithinWindow(restarts),
          lastRestart: restarts.at(-1),
          lastExit,
        };
      }),
    };
  }

  protected override async init(): Promise<void> {
    try {
      for (const child of this.children) await this.startChild(child);
    } catch (err) {
      await this.stopChildren(this.children);
      throw err;
    }
  }

  protected override handleCall(msg: SupervisorCall): unknown {
    // The type allows one call; an untyped caller's other message is the runtime's error.
    const type: unknown = msg.type;
    if (type !== 'which_children') return super.handleCall(msg);
    return this.children.map(({ spec, running }) => ({
      id: spec.id,
      alive: running?.actor.alive ?? false,
      name: running?.actor.name,
    }));
  }

  protected override async handleInfo(msg: Down): Promise<void> {
    if (!isDown(msg)) return; // only monitors' notices come here
    const index = this.children.findIndex((c) => c.running?.ref === msg.ref);
    if (index < 0) return; // a child we stopped on purpose
    const child = this.children[index];
    child.running = undefined;
    child.lastExit = describeReason(msg.reason).slice(0, EXIT_TEXT_MAX);
    this.onEvent({ type: 'child_exited', id: child.spec.id, reason: msg.reason });
    if (!shouldRestart(child.spec.restart ?? 'permanent', msg.reason)) return;

    const affected =
      this.strategy === 'one_for_one'
        ? [child]
        : this.strategy === 'rest_for_one'
          ? this.children.slice(index)
          : this.children;
    await this.stopChildren(affected.filter((c) => c !== child));
    await this.restartInOrder(affected, msg.reason);
  }

  protected override async terminate(): Promise<void> {
    await this.stopChildren(this.children);
  }

  /** One child's exit is one restart (OTP's count), however many siblings restart with it. */
  private async restartInOrder(children: Running[], reason: ExitReason): Promise<void> {
    let counted = false;
    for (const child of children) {
      if (child.spec.restart === 'temporary') continue; // stopped with its siblings, never restarted
      for (;;) {
        if (!counted && !this.intensity.allowRestart()) {
          this.onEvent({ type: 'gave_up', id: child.spec.id, reason });
          throw new RestartIntensityError(this.name, child.spec.id, reason);
        }
        counted = true;
        try {
          await this.startChild(child);
          child.restarts = recordRestart(child.restarts);
          this.onEvent({ type: 'child_restarted', id: child.spec.id });
          break;
        } catch (err) {
          reason = err;
          counted = false; // a start that fails is a restart of its own
        }
      }
    }
  }

  private async startChild(child: Running): Promise<void> {
    const actor = await child.spec.start();
    child.running = { actor, ref: this.monitor(actor) };
  }

  /** Stops the given children (those running) one at a time, in reverse order. */
  private async stopChildren(children: Running[]): Promise<void> {
    for (const child of [...children].reverse()) {
      const { running } = child;
      if (!running) continue;
      this.demonitor(running.actor, running.ref);
      child.running = undefined;
      await running.actor.stop('shutdown', child.spec.shutdownMs ?? DEFAULT_SHUTDOWN_MS);
    }
  }
}

export function shouldRestart(restart: RestartType, reason: ExitReason): boolean {
  if (restart === 'permanent') return true;
  if (restart === 'transient') return !isCleanExit(reason);
  return false;
}
