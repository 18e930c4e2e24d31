// At start, on the main thread: loads every registered handler module once and checks that it
// exports a perform function, by the very code a worker thread uses (workers/handler-loader.ts).
// A wrong path, a module without `perform` or a syntax error then stops the start, naming the
// file, instead of failing every job of that class later.
import path from 'node:path';
import { loadPerform } from '../workers/handler-loader';
import type { HandlerRegistry } from './handler-registry';

/** A registered handler that does not load or has no perform function. */
export class HandlerCheckError extends Error {
  override readonly name = 'HandlerCheckError';
}

/** Loads every module of `registry`; resolves to a one-line summary, or throws HandlerCheckError for the first bad one. */
export async function checkHandlers(registry: HandlerRegistry): Promise<string> {
  const modules = registry.modules;
  const outcomes = await Promise.allSettled(modules.map(({ file }) => loadPerform(file)));
  outcomes.forEach((outcome, i) => {
    if (outcome.status === 'rejected') throw new HandlerCheckError(`handler ${modules[i].className}: ${whyNot(modules[i].file, outcome.reason)}`);
  });
  const list = modules.map(({ className, file }) => `${className} (${shortPath(file)})`);
  return `handlers: ${list.join(', ') || 'none'}`;
}

/** The reason on one line, naming the file (and, for a CommonJS syntax error, the line). */
function whyNot(file: string, err: unknown): string {
  const e = err instanceof Error ? err : new Error(String(err));
  // "Cannot find module '/x/nope.js' imported from /.../handler-loader.js": the importer is nexq's.
  const reason = e.message.split('\n')[0].replace(/ imported from \S+$/, '');
  if (reason.includes(file)) return reason;
  // CommonJS puts "<file>:<line>" first in a SyntaxError's stack.
  const at = e.stack?.split('\n')[0];
  const where = at?.startsWith(`${file}:`) ? at : file;
  return `cannot load ${where}: ${e.name === 'Error' ? '' : `${e.name}: `}${reason}`;
}

/** A path relative to the working directory when it lies inside it; absolute otherwise. */
function shortPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}
