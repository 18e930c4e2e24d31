// Type tests of defineJob, checked by `tsc` when `npm test` builds (tsconfig.json includes test/):
// each `@ts-expect-error` line must fail to compile, or the build fails with "Unused
// '@ts-expect-error' directive". Nothing here runs: the function is never called.
import { BatchCallbackArg, defineJob, Nexq } from '../../src/index';
import { createTestNexq } from '../../src/testing/index';

/** An interface (no index signature) of JSON-safe fields: a job may take it. */
interface User {
  name: string;
  id: number;
  tags: string[];
  manager?: { name: string } | null;
}

export async function typeTests(nexq: Nexq): Promise<unknown[]> {
  const seen: unknown[] = [];
  const SendEmail = defineJob<[to: string, userId: number]>('SendEmail', { queue: 'mail' });

  const jid: string = await SendEmail.enqueue(nexq, ['a@b.c', 7]);
  seen.push(jid);
  await SendEmail.enqueueIn(nexq, 60, ['a@b.c', 7], { retry: 3 });
  await SendEmail.enqueueAt(nexq, new Date(), ['a@b.c', 7]);

  // A test producer (nexq/testing) takes typed jobs as a node does.
  const test = createTestNexq();
  await SendEmail.enqueue(test, ['a@b.c', 7]);
  await SendEmail.enqueueIn(test, 60, ['a@b.c', 7]);
  // @ts-expect-error: the arguments swapped, on a test producer too
  await SendEmail.enqueue(test, [7, 'a@b.c']);

  // @ts-expect-error: the arguments swapped
  await SendEmail.enqueue(nexq, [7, 'a@b.c']);
  // @ts-expect-error: one argument missing
  await SendEmail.enqueue(nexq, ['a@b.c']);
  // @ts-expect-error: one argument too many
  await SendEmail.enqueue(nexq, ['a@b.c', 7, true]);
  // @ts-expect-error: a wrong type in enqueueIn
  await SendEmail.enqueueIn(nexq, 60, ['a@b.c', '7']);
  // @ts-expect-error: enqueueAt takes a Date
  await SendEmail.enqueueAt(nexq, 1700000000, ['a@b.c', 7]);
  // @ts-expect-error: an option that does not exist
  await SendEmail.enqueue(nexq, ['a@b.c', 7], { retries: 3 });

  // A batch (and a handler's `this.batch`) takes a definition's jobs, typed the same way.
  const batch = nexq.batch({ onComplete: { queue: 'default', class: 'Done' } });
  seen.push(await SendEmail.enqueue(batch, ['a@b.c', 7]));
  await SendEmail.enqueueIn(batch, 60, ['a@b.c', 7]);
  await batch.enqueueAll([SendEmail.job(['a@b.c', 7]), SendEmail.job(['d@e.f', 8], { retry: 3 })]);
  await nexq.enqueueAll([SendEmail.job(['a@b.c', 7])]);
  // @ts-expect-error: the arguments swapped, enqueued into a batch
  await SendEmail.enqueue(batch, [7, 'a@b.c']);
  // @ts-expect-error: one argument missing in a batch's job
  await batch.enqueueAll([SendEmail.job(['a@b.c'])]);
  // @ts-expect-error: an option that does not exist, in a batch's job
  SendEmail.job(['a@b.c', 7], { retries: 3 });
  // @ts-expect-error: a batch's status is not somewhere to enqueue
  await SendEmail.enqueue(await batch.status(), ['a@b.c', 7]);
  SendEmail.handler(async function (to, userId) {
    if (this.batch) await SendEmail.enqueue(this.batch, [to, userId + 1]);
    // @ts-expect-error: this.batch may be missing (the job is in no batch)
    await SendEmail.enqueue(this.batch, [to, userId]);
  });

  // The handler's parameters are typed by the definition, and `this` is the job context.
  SendEmail.handler(function (to, userId) {
    const address: string = to;
    const id: number = userId;
    const jidOfRun: string = this.jid;
    seen.push(address, id, jidOfRun);
  });
  // @ts-expect-error: a handler whose parameter types disagree with the definition
  SendEmail.handler(function (to: number) {
    seen.push(to);
  });

  // A definition with a result type: its handler must return it, and its result is typed by it.
  const Total = defineJob<[values: number[]], number>('Total');
  Total.handler((values) => values.reduce((a, b) => a + b, 0));
  // @ts-expect-error: returns a string where the definition says number
  Total.handler(() => 'ten');
  // performMany: each job's args typed by the definition, one result (or Error) per job.
  Total.handlerMany(function (argsList) {
    const jids: string[] = this.jobs.map((job) => job.jid);
    seen.push(...jids);
    return argsList.map(([values]) => (values.length > 0 ? values[0] : new Error('no values')));
  });
  // @ts-expect-error: a result of the wrong type for one job
  Total.handlerMany((argsList) => argsList.map(() => 'ten'));
  const total: number = await Total.waitFor(nexq, jid, { timeout: 1000 });
  const kept: number | undefined = await Total.result(nexq, jid);
  seen.push(total, kept);
  // @ts-expect-error: a result may be missing
  const sure: number = await Total.result(nexq, jid);
  seen.push(sure);
  // @ts-expect-error: keepResult is a number of seconds
  await Total.enqueue(nexq, [[1, 2]], { keepResult: true });
  // Job arguments are JSON-safe types: what JSON would change does not compile.
  seen.push(defineJob<[user: User, note: string | null, flags: boolean[]]>('SignUp'));
  seen.push(defineJob<[{ at: string; count: number }[]]>('Batch'));
  // @ts-expect-error: a Date and a bigint (JSON writes a string, and throws)
  defineJob<[Date, bigint]>('Dated');
  // @ts-expect-error: a Date inside an object
  defineJob<[{ when: Date }]>('Nested');
  // @ts-expect-error: a function
  defineJob<[() => void]>('Callback');
  // @ts-expect-error: undefined, which JSON drops
  defineJob<[string | undefined]>('Maybe');
  // @ts-expect-error: a Map, which JSON writes as {}
  defineJob<[Map<string, number>]>('Mapped');

  // Batch callbacks: a definition whose last argument is the batch's { bid, event }.
  const ImportDone = defineJob<[region: string, batch: BatchCallbackArg]>('ImportDone');
  const typed = nexq.batch({ onComplete: ImportDone.callback(['eu']), onDeath: ImportDone.callback(['us']) });
  seen.push(typed);
  ImportDone.handler(function (region, batch) {
    const event: 'complete' | 'success' | 'death' = batch.event;
    seen.push(region.toUpperCase(), batch.bid, event);
  });
  // @ts-expect-error: the callback's own argument has the wrong type
  ImportDone.callback([1]);
  // @ts-expect-error: the batch's { bid, event } is appended by the batch, not given
  ImportDone.callback(['eu', { bid: 'b', event: 'complete' }]);
  // @ts-expect-error: a definition whose last argument is not the batch's is no callback
  SendEmail.callback(['a@b.c']);
  // @ts-expect-error: a callback needs a queue and a class
  nexq.batch({ onSuccess: { args: [] } });
  return seen;
}
