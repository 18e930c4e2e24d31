// Which module handles which job class. Built once at start from `jobs` and `jobsDir`; at run time
// a class name only selects an entry of this map, so it can never name a file of its own choosing.
import { NexqError } from '../../config/nexq-error';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../config/config-error';
import type { RetryPolicy } from '../job/retry-policy';
import { isTypeScriptFile } from '../../workers/typescript-loader';
import type { ChunkSettings } from '../../workers/chunk-settings';

/** JavaScript, and TypeScript (run through Node's type stripping or tsx: workers/typescript-loader.ts). */
const MODULE_EXTENSIONS = ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts'];
/** Ruby's Foo::Bar, Exq's Foo.Bar, plain names; each segment an identifier. */
const CLASS_NAME = /^[A-Za-z_$][\w$]*(?:(?:::|\.)[A-Za-z_$][\w$]*)*$/;
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);
const ACTIVE_JOB_WRAPPER = 'ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper';

export class UnknownJobClassError extends NexqError {
  static override readonly code = 'HANDLER_MISSING';
  override readonly name = 'UnknownJobClassError';
}

export function isValidClassName(name: string): boolean {
  return CLASS_NAME.test(name) && !name.split(/::|\./).some((segment) => RESERVED.has(segment));
}

/** Exq writes Elixir modules as `Elixir.Foo.Bar`; the class is `Foo.Bar`. */
export function normalizeClassName(name: string): string {
  return name.startsWith('Elixir.') ? name.slice('Elixir.'.length) : name;
}

/** What the start's check learnt of a module (src/handlers/check.ts). */
export interface HandlerTraits {
  /** Its `retry` export. */
  retry?: RetryPolicy;
  /** Whether it exports an `exhausted` hook. */
  exhausted: boolean;
  /** Whether it exports `encrypt = true`: its jobs' args are stored encrypted. */
  encrypt?: boolean;
  /** Its `chunk` settings, when it exports `performMany`: its jobs run in chunks. */
  chunk?: ChunkSettings;
}

export interface Resolved extends Partial<HandlerTraits> {
  file: string;
  activeJob: boolean;
}

export class HandlerRegistry {
  private readonly files = new Map<string, string>();
  private readonly traits = new Map<string, HandlerTraits>();
  /** Modules in jobsDir whose names are no class name (`send-email.js`): not handlers, said at the start. */
  readonly skipped: string[] = [];

  constructor(jobs: Record<string, string> = {}, jobsDir?: string, baseDir: string = process.cwd()) {
    if (jobsDir) this.scan(readableFolder(path.resolve(baseDir, jobsDir)), []);
    for (const [className, file] of Object.entries(jobs)) {
      const name = normalizeClassName(className);
      if (!isValidClassName(name))
        throw new ConfigError('jobs', 'class names of letters, digits and _ (parts joined by :: or .)', className);
      this.files.set(name, path.resolve(baseDir, file));
    }
  }

  get classNames(): string[] {
    return [...this.files.keys()];
  }

  /** Each registered module once, with the first class name it handles. */
  get modules(): Array<{ className: string; file: string }> {
    const seen = new Map<string, string>();
    for (const [className, file] of this.files) if (!seen.has(file)) seen.set(file, className);
    return [...seen].map(([file, className]) => ({ className, file }));
  }

  /** Records what the start's check found in the module `file`. */
  learn(file: string, traits: HandlerTraits): void {
    this.traits.set(file, traits);
  }

  /** The class names whose module exports `encrypt = true` (known once the start's check learnt them). */
  get encryptedClasses(): string[] {
    return [...this.files].filter(([, file]) => this.traits.get(file)?.encrypt === true).map(([name]) => name);
  }

  /** Whether a handler is registered for `className` (Exq's `Elixir.` prefix dropped). */
  has(className: string): boolean {
    return this.files.has(normalizeClassName(className));
  }

  /** The handler for a job, by `class` (or `wrapped` for ActiveJob). Throws UnknownJobClassError. */
  resolve(className: string, wrapped?: unknown): Resolved {
    const activeJob = className === ACTIVE_JOB_WRAPPER && typeof wrapped === 'string';
    const name = normalizeClassName(activeJob ? wrapped : className);
    const file = isValidClassName(name) ? this.files.get(name) : undefined;
    if (!file) {
      const why = isValidClassName(name) ? 'no handler is registered for it' : 'it is not a valid class name';
      throw new UnknownJobClassError(`cannot run job class ${JSON.stringify(name.slice(0, 200))}: ${why}`);
    }
    return { file, activeJob, ...this.traits.get(file) };
  }

  private scan(dir: string, segments: string[]): void {
    for (const entry of readdirSync(dir).sort()) {
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) {
        if (isValidClassName(entry)) this.scan(full, [...segments, entry]);
        continue;
      }
      const ext = path.extname(entry);
      const base = entry.slice(0, -ext.length);
      if (!MODULE_EXTENSIONS.includes(ext) || (ext.endsWith('ts') && !isTypeScriptFile(entry))) continue;
      // Sorted: Foo.cjs, Foo.js, Foo.mjs come before Foo.ts, so a compiled file next to its source wins.
      if (!isValidClassName(base)) {
        this.skipped.push(full);
        continue;
      }
      const names = segments.length ? [[...segments, base].join('::'), [...segments, base].join('.')] : [base];
      for (const name of names) if (!this.files.has(name)) this.files.set(name, full);
    }
  }
}

/** `dir` when it is a folder nexq can read; otherwise a ConfigError naming it (not a raw ENOENT). */
function readableFolder(dir: string): string {
  let isFolder: boolean;
  try {
    isFolder = statSync(dir).isDirectory();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError('jobsDir', code === 'ENOENT' ? 'a folder that exists' : `a readable folder (${code})`, dir);
  }
  if (!isFolder) throw new ConfigError('jobsDir', 'a folder, not a file', dir);
  return dir;
}
