// Running one handler as a thread does (workers/perform-task.ts): what a failure says about where
// it happened, and the context a handler sees.
import { expect } from 'chai';
import path from 'node:path';
import { JobContext } from '../../workers/handler-loader';
import { performTask } from '../../workers/perform-task';
import type { ThrownError } from '../../workers/protocol';
import { fixture, repoRoot } from '../support/paths';

const broken = (file: string) => path.join(repoRoot, 'test', 'fixtures', 'broken-handlers', file);

function task(file: string, fields: Record<string, unknown> = {}, args: unknown[] = []) {
  return { raw: JSON.stringify({ class: 'X', args, jid: 'j1', queue: 'default', ...fields }), file };
}

async function failureOf(file: string, args: unknown[] = []): Promise<ThrownError> {
  const outcome = await performTask(task(file, {}, args));
  if (outcome.ok) throw new Error('the job did not fail');
  return outcome.error;
}

describe('performTask', () => {
  it("gives this.retryCount 0 on a first run and the payload's count after", async () => {
    const seen: JobContext[] = [];
    await performTask(task(fixture('Fail.js')), { starting: (_args, context) => seen.push(context) });
    await performTask(task(fixture('Fail.js'), { retry_count: 2 }), {
      starting: (_args, context) => seen.push(context),
    });
    expect(seen.map((c) => c.retryCount)).to.deep.equal([0, 2]);
  });

  it('answers a rateLimited run with its seconds, and fails one that gives no positive number', async () => {
    expect(await performTask(task(fixture('RateLimited.js'), {}, [2.5]))).to.deep.equal({ ok: true, rateLimited: 2.5 });
    for (const bad of [0, -1, 'soon', Infinity]) {
      const error = await failureOf(fixture('RateLimited.js'), [bad]);
      expect(error, String(bad)).to.include({ class: 'TypeError' });
      expect(error.message).to.match(/^rateLimited\(seconds\) needs a number of seconds > 0/);
    }
  });

  it("keeps the handler's frames first and drops nexq's own and Node's internal ones", async () => {
    const error = await failureOf(fixture('Typo.js'), [{}]);
    expect(error).to.include({ class: 'TypeError', message: "Cannot read properties of undefined (reading 'name')" });
    expect(error.backtrace![0]).to.include(`${fixture('Typo.js')}:3:`);
    const nexqOwn = path.join(repoRoot, 'dist', 'workers');
    for (const frame of error.backtrace!)
      expect(frame)
        .not.to.include(nexqOwn)
        .and.not.to.match(/node:internal|piscina/);
  });

  describe('a handler file that fails to load', () => {
    it('names the file and line of a syntax error', async () => {
      const error = await failureOf(broken('Unfinished.js'));
      expect(error.class).to.equal('HandlerLoadError');
      expect(error.message).to.equal(
        `${broken('Unfinished.js')} failed to load: SyntaxError: Unexpected end of input at ${broken('Unfinished.js')}:5`,
      );
    });

    it('names the line that threw while the module ran', async () => {
      const error = await failureOf(broken('ThrowsOnLoad.js'));
      expect(error.message).to.match(
        /ThrowsOnLoad\.js failed to load: TypeError: Cannot read properties of undefined \(reading 'timeout'\) at .*ThrowsOnLoad\.js:3:\d+$/,
      );
      expect(error.backtrace![0]).to.include('ThrowsOnLoad.js:3');
    });

    it('names an ES module with a syntax error and how to find its line', async () => {
      const error = await failureOf(broken('Unfinished.mjs'));
      expect(error.message).to.equal(
        `${broken('Unfinished.mjs')} failed to load: SyntaxError: Unexpected end of input (Node gives no line for ES modules: run node --check ${broken('Unfinished.mjs')})`,
      );
    });
  });
});
