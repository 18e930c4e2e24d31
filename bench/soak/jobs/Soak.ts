// The soak's job: a no-op that fails on purpose for some jobs, as the enqueuer's `kind` says.
// 'fail-once' fails its first run and succeeds on its retry; 'dead' fails every run (it is
// enqueued with `retry: 1`, so its second failure buries it in the dead set).
export function perform(this: { retryCount: number }, index: number, kind: string): void {
  if (kind === 'dead' || (kind === 'fail-once' && this.retryCount === 0))
    throw new Error(`soak: planned failure of job ${index} (${kind})`);
}
