// A failed job's stack as a developer reads it: the handler's frames, without nexq's own frames
// (this folder and src/), piscina's or Node's internals, OpenTelemetry's (the span a job runs in
// when @opentelemetry/api is installed, and its AsyncLocalStorage) or the TypeScript loader's (tsx
// and its esbuild), which say nothing about where the job failed.
import path from 'node:path';

/** The most frames a failure keeps (what `backtrace: true` means). */
export const MAX_BACKTRACE_LINES = 100;

/** nexq's package root: this file is compiled to <root>/dist/workers/. */
const ROOT = path.resolve(__dirname, '..', '..');
/**
 * nexq's own code: the compiled folders, and the TypeScript sources their source maps name (what a
 * stack shows once source maps are on, as tsx turns them on in every thread it loads handlers in).
 */
const OWN_DIRS = ['src', 'workers', 'config', 'supervisors'].flatMap((dir) => [
  path.join(ROOT, 'dist', dir, path.sep),
  path.join(ROOT, dir, path.sep),
]);
const FOREIGN_INTERNALS = [
  /\(node:internal\//,
  /^at node:internal\//,
  /\(node:async_hooks:/,
  /[\\/]node_modules[\\/](?:piscina|@opentelemetry[\\/][^\\/]+|tsx|esbuild)[\\/]/,
];

function isInternal(frame: string): boolean {
  return OWN_DIRS.some((dir) => frame.includes(dir)) || FOREIGN_INTERNALS.some((pattern) => pattern.test(frame));
}

/** The `at ...` lines of a V8 stack, trimmed, internal ones dropped, at most MAX_BACKTRACE_LINES. */
export function handlerFrames(stack: string | undefined): string[] {
  if (!stack) return [];
  const frames: string[] = [];
  let afterInternal = false;
  for (const line of stack.split('\n')) {
    const frame = line.trim();
    if (!frame.startsWith('at ')) continue;
    // `Promise.all (index 0)` right under nexq's own frame is the batch of the thread running jobs.
    const internal: boolean =
      isInternal(frame) || (afterInternal && /^at async Promise\.all \(index \d+\)$/.test(frame));
    afterInternal = internal;
    if (internal) continue;
    frames.push(frame);
    if (frames.length === MAX_BACKTRACE_LINES) break;
  }
  return frames;
}

/** `path:line[:column]` of the first frame that names a file, e.g. `/app/jobs/Foo.js:3:20`. */
export function firstLocation(frames: string[]): string | undefined {
  for (const frame of frames) {
    const match = /\(?((?:file:\/\/)?[^\s()]+:\d+(?::\d+)?)\)?$/.exec(frame);
    if (match) return match[1];
  }
  return undefined;
}
