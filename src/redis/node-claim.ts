// The default node id: `<hostname>-<n>`, the lowest n whose claim is free, so a process restarted on
// the same host gets its predecessor's id back and re-enqueues that node's backup lists at boot
// (Exq's default id is the host name), while no two live processes ever share an id.
//
// A claim is a Redis key (keys.nodeClaim) holding its process' record, taken with a compare-and-set
// (claim-node.lua), renewed with each beat and given back at stop. Its time to live is the node
// timeout: a claim nobody renews lapses when a reaper could recover the node anyway. A claim still
// alive is taken over at once only when its holder is proven dead from here: same host name, same
// kernel boot (boot_id), same pid namespace, and its pid gone or now another process (a start time
// that differs). Anything this process cannot see (another machine with the same host name, another
// container: each has its own pid namespace, where pid 1 on every restart says nothing) is never
// taken over: the process takes the next n, and its predecessor's jobs wait for the reaper.
import { readFileSync, readlinkSync } from 'node:fs';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type { RedisClient } from './client';
import type { Keys } from './keys';
import { runScript } from './scripts';

/** Ids tried before giving up: more live nodes on one host than this is a mistake. */
export const MAX_NODES_PER_HOST = 1000;

/** What a claim says of the process that holds it. */
export interface ClaimHolder {
  host: string;
  /** The kernel's boot id ('' where there is none to read). */
  boot: string;
  /** The pid namespace ('' where there is none to read). */
  pidns: string;
  pid: number;
  /** The process' start, in clock ticks since boot (/proc/<pid>/stat; '' where unreadable). */
  start: string;
  /** Random: no two processes' records are equal. */
  token: string;
}

/** This process, as a claim records it. */
export function thisProcess(): ClaimHolder {
  return {
    host: os.hostname(),
    boot: readOr(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()),
    pidns: readOr(() => readlinkSync('/proc/self/ns/pid')),
    pid: process.pid,
    start: startOf(process.pid) ?? '',
    token: randomBytes(8).toString('hex'),
  };
}

/** The host part of a default id: the host name, as a node id may spell it. */
export function hostPart(host = os.hostname()): string {
  return host.replace(/[^\w.-]/g, '_').slice(0, 100) || 'node';
}

function readOr(read: () => string): string {
  try {
    return read();
  } catch {
    return '';
  }
}

/** When `pid` started (field 22 of /proc/<pid>/stat), or undefined when it is not running or unreadable. */
function startOf(pid: number): string | undefined {
  const stat = readOr(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return stat === '' ? undefined : fields[22 - 3];
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * True when `holder` is certainly no longer running: it ran where this process can see its pid
 * (same host, boot and pid namespace), and that pid is gone or belongs to a process started since.
 */
export function provenDead(holder: ClaimHolder, here: ClaimHolder): boolean {
  const sameView = holder.host === here.host && here.boot !== '' && holder.boot === here.boot;
  if (!sameView || here.pidns === '' || holder.pidns !== here.pidns) return false;
  if (!running(holder.pid)) return true;
  const start = startOf(holder.pid);
  return holder.start !== '' && start !== undefined && start !== holder.start;
}

function holderOf(record: string): ClaimHolder | undefined {
  try {
    const parsed = JSON.parse(record) as ClaimHolder;
    return typeof parsed.pid === 'number' && typeof parsed.host === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A node's claim on its default id. */
export class NodeClaim {
  private constructor(
    private readonly keys: Keys,
    readonly nodeId: string,
    private readonly record: string,
    private readonly ttlMs: number,
  ) {}

  /**
   * Claims the lowest free `<host>-<n>`: free, lapsed, or held by a process proven dead (then
   * `tookOver` says so: that node's backup lists are this node's to re-enqueue at boot).
   */
  static async take(
    redis: RedisClient,
    keys: Keys,
    ttlMs: number,
    here: ClaimHolder = thisProcess(),
  ): Promise<{ claim: NodeClaim; tookOver?: ClaimHolder }> {
    const record = JSON.stringify(here);
    for (let n = 1; n <= MAX_NODES_PER_HOST; n++) {
      const nodeId = `${hostPart(here.host)}-${n}`;
      const claim = new NodeClaim(keys, nodeId, record, ttlMs);
      const answer = await claim.run(redis, 'take');
      if (answer === 1) return { claim };
      const holder = holderOf(String(answer));
      // A holder's record is replaced only if unchanged since it was read: a process that took it
      // meanwhile keeps it.
      if (holder && provenDead(holder, here) && (await claim.run(redis, 'take', String(answer))) === 1)
        return { claim, tookOver: holder };
    }
    throw new Error(`no free node id on host ${here.host}: ${MAX_NODES_PER_HOST} are claimed by live processes`);
  }

  /** Renews the claim (each beat); false when another process holds it now. */
  async renew(redis: RedisClient): Promise<boolean> {
    return (await this.run(redis, 'renew')) === 1;
  }

  /** Gives the id back (at stop), unless another process holds it now. */
  async release(redis: RedisClient): Promise<void> {
    await this.run(redis, 'release');
  }

  private run(redis: RedisClient, mode: 'take' | 'renew' | 'release', replacing = ''): Promise<unknown> {
    return runScript(
      redis,
      'claim-node',
      [this.keys.nodeClaim(this.nodeId)],
      [mode, this.record, this.ttlMs, replacing],
    );
  }
}
