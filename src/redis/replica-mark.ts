// How many replicas must hold a write before nexq calls it confirmed: at least `waitReplicas`,
// and every replica the master has had online (its high-water mark, per replication ID).
//
// Why every one: Sentinel's forced failover (SENTINEL FAILOVER) detaches the replica it promotes
// and leaves the old master taking writes until it demotes it ~10 s later; the other replicas stay
// on the old master for a moment and acknowledge those writes, then resync in full from the new
// master and drop them. A write the promoted replica never got is lost however many others hold
// it, and which replica Sentinel promotes is not known in advance. So a master that had two
// replicas online confirms nothing with one: the write must reach the one that left too, and it
// cannot, so it fails (UnconfirmedWriteError: the callers retry or reject) until the nodes follow
// the sentinels to the new master. A promoted replica gets a new replication ID and starts its own
// mark from the replicas it has, so writes resume as soon as it has `waitReplicas` of them.
//
// The marks live in this process (every connection shares them), keyed by replication ID, which a
// master keeps until it is demoted and changes when a replica is promoted. A replica that leaves
// for good holds back every write to its master until it is back, the master changes, or the
// nodes restart (see docs: the replicas section of the README).

export interface ReplicationState {
  /** `master` or `slave` (INFO's word). */
  role: string;
  /** The master's replication ID. */
  replid: string;
  /** Replicas attached and in sync (state=online). */
  online: number;
}

/** Reads the fields nexq needs from `INFO replication`. */
export function parseReplication(info: string): ReplicationState {
  return {
    role: /^role:(\w+)/m.exec(info)?.[1] ?? 'unknown',
    replid: /^master_replid:(\w+)/m.exec(info)?.[1] ?? '',
    online: info.split('\n').filter((line) => /^slave\d+:.*state=online/.test(line)).length,
  };
}

const marks = new Map<string, number>();

/** Records what `state` shows; resolves how many replicas a write on that master needs. */
export function replicasNeeded(state: ReplicationState, minimum: number): number {
  const mark = Math.max(marks.get(state.replid) ?? 0, state.online);
  if (state.replid) marks.set(state.replid, mark);
  return Math.max(minimum, mark);
}

/** What a write on the master with this replication ID needs, as far as this process knows. */
export function knownNeed(replid: string | undefined, minimum: number): number {
  return Math.max(minimum, (replid === undefined ? undefined : marks.get(replid)) ?? 0);
}
