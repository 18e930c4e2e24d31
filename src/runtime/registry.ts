// A name registry, one per node, so actors find each other by name (OTP's `name: {:via, ...}`).
import { NexqError } from '../../config/nexq-error';

/** What the registry needs of an actor: whether it still runs (the runtime's Actor has it). */
export interface Registered {
  readonly alive: boolean;
}

export class NameTakenError extends NexqError {
  static override readonly code = 'ACTOR_NAME_TAKEN';
  override readonly name = 'NameTakenError';
  constructor(readonly actorName: string) {
    super(`an actor named ${actorName} is already running`);
  }
}

export class Registry {
  private readonly byName = new Map<string, Registered>();

  register(name: string, actor: Registered): void {
    const current = this.byName.get(name);
    if (current && current !== actor && current.alive) throw new NameTakenError(name);
    this.byName.set(name, actor);
  }

  /** Removes the entry only if it still points at `actor` (a restarted successor keeps its name). */
  unregister(name: string, actor: Registered): void {
    if (this.byName.get(name) === actor) this.byName.delete(name);
  }

  whereis<A extends Registered>(name: string): A | undefined {
    return this.byName.get(name) as A | undefined;
  }

  /** Like `whereis`, but a missing actor is an error naming what was looked for. */
  lookup<A extends Registered>(name: string): A {
    const actor = this.whereis<A>(name);
    if (!actor) throw new Error(`no actor named ${name} is running`);
    return actor;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }
}
