// What the soak (parent) and its node processes (soak-node.ts) say to each other over IPC.

/** A node's configuration, as JSON in NEXQ_SOAK_NODE. */
export interface SoakNodeConfig {
  redisUrl: string;
  namespace: string;
  queue: string;
  concurrency: number;
}

/** process.memoryUsage() of the node, in bytes. */
export interface NodeMemory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

export type SoakNodeMessage =
  | { type: 'ready'; nodeId: string }
  /** Runs finished since the last report, as job indexes (args[0]): the successes and the failures. */
  | { type: 'progress'; succeeded: number[]; failed: number[]; memory: NodeMemory }
  | { type: 'stopped' }
  | { type: 'error'; message: string };

export type SoakParentMessage = { type: 'stop' };
