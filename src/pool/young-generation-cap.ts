// Caps the main thread's young generation (V8's new space), the largest part of a busy node's
// memory: V8 doubles it, up to 32 MB on 64-bit, whenever enough objects survived its scavenges,
// and each job in flight survives a few. Its maximum is fixed when the process starts
// (`--max-semi-space-size`), but how much it grows by is read at each growth
// (`--semi-space-growth-factor`): after each scavenge this sets that factor to 1 (no growth) once
// the new space reached the cap, and back to V8's 2 when V8 shrank it below (after an idle spell).
// The factor is re-applied each time: V8 puts it back to 2 as it sets up a new thread's heap (while
// the thread boots, before its 'online'), so whoever starts threads calls `recheckYoungGeneration` after.
//
// The factor is process-wide: while the cap holds, no thread's young generation grows either, so
// threads start theirs at a size of their own (`sizeThreadYoungGeneration`).
// Process-wide too: the cap is the smallest asked by the nodes running in this process.
import { constants, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';

const NO_GROWTH = '--semi-space-growth-factor=1';
const V8_GROWTH = '--semi-space-growth-factor=2';

const caps = new Set<{ bytes: number }>();
let observer: PerformanceObserver | undefined;
let capped = false;

/** The new space's size now (both semi-spaces), in bytes. */
export function youngGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * Worker threads started from now on begin with a young generation of `mb` MB (0: V8's 2 MB),
 * read by each new thread's heap as it is set up (`--min-semi-space-size`, one semi-space of two).
 */
export function sizeThreadYoungGeneration(mb: number): void {
  if (mb > 0) v8.setFlagsFromString(`--min-semi-space-size=${Math.max(1, Math.round(mb / 2))}`);
}

/** Applies the cap again now (after something may have reset V8's flags); nothing when none is set. */
export function recheckYoungGeneration(): void {
  if (caps.size === 0) return;
  let bytes = Infinity;
  for (const cap of caps) bytes = Math.min(bytes, cap.bytes);
  const atCap = youngGenerationBytes() >= bytes;
  if (atCap) v8.setFlagsFromString(NO_GROWTH);
  else if (capped) v8.setFlagsFromString(V8_GROWTH);
  capped = atCap;
}

/**
 * Keeps the young generation of this (main) thread at `mb` MB at most, from now on (it does not
 * shrink one that is already larger); 0 leaves it to V8. Returns the function that lifts this cap.
 */
export function capYoungGeneration(mb: number): () => void {
  if (mb <= 0) return () => {};
  const cap = { bytes: mb * 1024 * 1024 };
  caps.add(cap);
  if (!observer) {
    observer = new PerformanceObserver((list) => {
      if (
        list
          .getEntries()
          .some(
            (entry) => (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR,
          )
      )
        recheckYoungGeneration();
    });
    observer.observe({ entryTypes: ['gc'] });
  }
  recheckYoungGeneration();
  return () => {
    if (!caps.delete(cap)) return;
    if (caps.size > 0) {
      recheckYoungGeneration();
      return;
    }
    observer?.disconnect();
    observer = undefined;
    if (capped) v8.setFlagsFromString(V8_GROWTH);
    capped = false;
  };
}
