// Imports a handler (or threadSetup) module, TypeScript ones included, the same way on the main
// thread and on every worker thread. Node 20 runs no `.ts` by itself, and a worker thread does not
// inherit the loader hooks of `node --import tsx` or of the `tsx` command (each thread has its own
// module loader, and the hooks registered in the main thread do not reach it). So:
//
// 1. A module is imported as it is: JavaScript, or TypeScript where this thread already runs it
//    (Node's own type stripping: 22.6+ with --experimental-strip-types, 23.6+ by default).
// 2. A TypeScript module that this thread cannot run is imported through tsx, found from the
//    module's folder or the working directory, registered in this thread under a namespace of its
//    own: only what nexq imports through it runs through it. (Where the threads share the main
//    thread's hooks, Node 22.2 and later, an app run with `--import tsx` is served by step 1.)
// 3. Without tsx it fails with HandlerLoadError, one line saying what to install or to compile.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { HandlerLoadError } from './handler-load-error';

const TYPESCRIPT = /\.(?:ts|mts|cts)$/;
/** Declaration files hold no code to run. */
const DECLARATION = /\.d\.(?:ts|mts|cts)$/;
/** How Node refuses a module it cannot run as TypeScript: an unknown extension, or syntax stripping cannot erase. */
const NOT_RUNNABLE = new Set(['ERR_UNKNOWN_FILE_EXTENSION', 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX']);

/** Whether `file` is a TypeScript module (`.ts`, `.mts`, `.cts`; not a `.d.ts`). */
export function isTypeScriptFile(file: string): boolean {
  return TYPESCRIPT.test(file) && !DECLARATION.test(file);
}

/** tsx's namespaced loaders in this thread, once one was needed. */
interface Tsx {
  import(specifier: string, parentURL: string): Promise<unknown>;
  require(id: string, fromFile: string): unknown;
}
let tsx: Promise<Tsx> | undefined;

/** Imports `file` (an absolute path), through tsx when it is TypeScript this thread cannot run. */
export async function importModule(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (err) {
    if (!isTypeScriptFile(file) || !NOT_RUNNABLE.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
    const loader = await tsxLoader(file, err as Error);
    const mod = isEsModule(file) ? await loader.import(url, __filename) : loader.require(file, __filename);
    return mod as Record<string, unknown>;
  }
}

/**
 * tsx 4's loaders, registered once per thread under a namespace of their own: they run only the
 * modules nexq imports through them (and what those import), so the app's other modules, and its
 * JavaScript handlers, load as before. The ES one from `tsx/esm/api`'s ES build (its CommonJS build
 * registers hooks by a path relative to the wrong folder), the CommonJS one from `tsx/cjs/api`.
 */
function tsxLoader(file: string, refusal: Error): Promise<Tsx> {
  tsx ??= (async () => {
    const api = tsxApi(file);
    if (!api) throw new HandlerLoadError(missingLoader(file, refusal));
    type Register = (options: { namespace: string }) => Record<string, unknown>;
    const cjs = (createRequire(__filename)(api.cjs) as { register?: Register }).register;
    const esm = ((await import(pathToFileURL(api.esm).href)) as { register?: Register }).register;
    if (typeof cjs !== 'function' || typeof esm !== 'function')
      throw new HandlerLoadError(`${file}: the tsx found (${api.cjs}) has no register(); nexq needs tsx 4 or later`);
    const namespace = { namespace: 'nexq' };
    return { ...(esm(namespace) as Pick<Tsx, 'import'>), ...(cjs(namespace) as Pick<Tsx, 'require'>) };
  })();
  // A failure is not kept: tsx may be installed while the node runs.
  tsx.catch(() => (tsx = undefined));
  return tsx;
}

/** tsx's two APIs as the app would find them (from the module's folder, then the working directory). */
function tsxApi(file: string): { cjs: string; esm: string } | undefined {
  const paths = [path.dirname(file), process.cwd()];
  try {
    const cjs = require.resolve('tsx/cjs/api', { paths });
    const esmCjs = require.resolve('tsx/esm/api', { paths });
    const esm = esmCjs.replace(/\.cjs$/, '.mjs');
    return { cjs, esm: existsSync(esm) ? esm : esmCjs };
  } catch {
    return undefined;
  }
}

/** Whether TypeScript compiles `file` to an ES module: `.mts`, or `.ts` in a package of `"type": "module"`. */
function isEsModule(file: string): boolean {
  if (file.endsWith('.mts')) return true;
  if (file.endsWith('.cts')) return false;
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        return (JSON.parse(readFileSync(manifest, 'utf8')) as { type?: unknown }).type === 'module';
      } catch {
        return false;
      }
    }
    if (path.dirname(dir) === dir) return false;
  }
}

/**
 * The one line that says what to do: install tsx, turn on Node's type stripping where this Node has
 * it, or compile. `refusal` is Node's own error: an unknown extension, or syntax it cannot strip.
 */
export function missingLoader(file: string, refusal: Error, version: string = process.versions.node): string {
  const [major, minor] = version.split('.').map(Number);
  // Node 22.6 to 23.5 strip types behind a flag; 23.6 and later by default.
  const behindFlag = (major === 22 && minor >= 6) || (major === 23 && minor < 6);
  const why =
    (refusal as NodeJS.ErrnoException).code === 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX'
      ? `uses TypeScript that Node ${version} cannot strip (${refusal.message.split('\n')[0]})`
      : `is TypeScript, which Node ${version} does not run by itself`;
  const flag = behindFlag ? ', run node with --experimental-strip-types' : '';
  return `${file} ${why}: install tsx (npm install --save-dev tsx)${flag}, or compile the handlers to JavaScript (tsc)`;
}
