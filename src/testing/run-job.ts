// Runs one payload's handler in-process the way a node does: the class picks a module through the
// HandlerRegistry (an unknown class is a failed job, as in JobRunner), then the worker's own
// performTask parses the JSON, loads the module and calls perform with the job context as `this`.
import type { HandlerRegistry, Resolved } from '../handlers/registry';
import { decodeJob } from '../job/job';
import { jobErrorOf } from '../job/run-errors';
import { performTask } from '../../workers/perform-task';
import type { JobOutcome } from '../../workers/protocol';
import { jsonProblems } from '../job/json-safety';
import { preview } from './json-values';
import { runInScope, ScopeOwner } from './scope';

export interface RunResult {
  outcome: JobOutcome;
  /** Things a node would not notice but a test should: args changed by perform, odd return values. */
  warnings: string[];
  /** What perform threw, as thrown (the outcome only has its class, message and backtrace). */
  thrown?: unknown;
}

function stringify(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

export async function runPayload(nexq: ScopeOwner, registry: HandlerRegistry, raw: string): Promise<RunResult> {
  const job = decodeJob(raw);
  let resolved: Resolved;
  try {
    resolved = registry.resolve(job.class, job.wrapped);
  } catch (err) {
    return { outcome: { ok: false, error: jobErrorOf(err) }, warnings: [], thrown: err };
  }

  const warnings: string[] = [];
  /** The args perform got, and their JSON then (args parsed from JSON always have one). */
  let passed: { args: unknown[]; before: string } | undefined;
  let thrown: unknown;
  const outcome = await runInScope(nexq, () =>
    performTask(
      { raw, file: resolved.file, activeJob: resolved.activeJob },
      {
        starting(args) {
          passed = { args, before: JSON.stringify(args) };
        },
        returned(value) {
          if (value === undefined) return;
          const problems = jsonProblems(value, 'the return value');
          if (problems.length) {
            warnings.push(
              `perform returned a value that is not JSON-safe (a node discards return values): ${problems.join('; ')}`,
            );
          }
        },
        failed(err) {
          thrown = err;
        },
      },
    ),
  );
  if (passed) {
    const { args, before } = passed;
    const after = stringify(args);
    if (after !== before) {
      warnings.push(
        `perform changed its args from ${preview(JSON.parse(before))} to ${after === undefined ? 'something JSON cannot write' : preview(JSON.parse(after))}; ` +
          'a retry runs with the original args again, so a job must not rely on changing them',
      );
    }
  }
  return { outcome, warnings, thrown };
}
