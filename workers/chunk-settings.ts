// How a handler module that exports `performMany(argsList)` takes its jobs: its `chunk` export,
// `{ size, waitMs }`, read and checked once where the module loads (at the start's check, and on
// each thread), so a bad one stops the start naming the file (docs/jobs.md#many-jobs-per-call).

/** Up to `size` jobs of one class and queue per call, waiting at most `waitMs` for a chunk to fill. */
export interface ChunkSettings {
  size: number;
  waitMs: number;
}

/** What a module with `performMany` and no `chunk` export gets. */
export const DEFAULT_CHUNK: ChunkSettings = { size: 100, waitMs: 50 };

/** The bounds a `chunk` export must keep. */
export const MAX_CHUNK_SIZE = 1000;
export const MAX_CHUNK_WAIT_MS = 60_000;

/** The module's chunk settings, or why its `chunk` export is refused. */
export function readChunkSettings(value: unknown): ChunkSettings | string {
  if (value === undefined) return DEFAULT_CHUNK;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return `chunk must be an object { size, waitMs }, not ${value === null ? 'null' : typeof value}`;
  const { size = DEFAULT_CHUNK.size, waitMs = DEFAULT_CHUNK.waitMs, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) return `chunk takes only size and waitMs, not ${unknown.join(', ')}`;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > MAX_CHUNK_SIZE)
    return `chunk.size must be an integer from 1 to ${MAX_CHUNK_SIZE}, not ${String(size)}`;
  if (typeof waitMs !== 'number' || !Number.isInteger(waitMs) || waitMs < 0 || waitMs > MAX_CHUNK_WAIT_MS)
    return `chunk.waitMs must be an integer from 0 to ${MAX_CHUNK_WAIT_MS}, not ${String(waitMs)}`;
  return { size, waitMs };
}
