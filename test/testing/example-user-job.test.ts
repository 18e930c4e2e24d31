// An example: how a nexq user tests their jobs with nexq/testing alone (the app is in
// test/fixtures/user-app). Nothing here needs Redis.
import path from 'node:path';
import { expect } from 'chai';
import { createTestNexq, JobFailedError } from 'nexq/testing';
import { repoRoot } from '../support/paths';

const app = path.join(repoRoot, 'test', 'fixtures', 'user-app');
const jobsDir = path.join(app, 'jobs');
// The app's mail service keeps what it sent; require (CommonJS, a path known at run time) gives
// the very module instance the jobs use.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
const mailer: { sent: Array<{ to: string; subject: string }> } = require(path.join(app, 'mailer.js'));

describe('example: testing a user app with nexq/testing', () => {
  beforeEach(() => {
    mailer.sent.length = 0;
  });

  it('SignUp enqueues a welcome mail now and a tips mail in three days', async () => {
    const nexq = createTestNexq({ mode: 'fake', jobsDir });

    const outcome = await nexq.performJob('SignUp', [7, 'ann@example.com']);

    expect(outcome).to.deep.equal({ ok: true });
    nexq.assertEnqueued({ queue: 'mail', class: 'WelcomeEmail', args: ['ann@example.com', 7] });
    const [tips] = nexq.assertEnqueued({ queue: 'mail', class: 'TipsEmail' });
    expect(tips.at).to.be.greaterThan(Date.now() / 1000 + 2 * 24 * 3600);
    expect(mailer.sent).to.deep.equal([]);
  });

  it('draining the queues sends both mails', async () => {
    const nexq = createTestNexq({ jobsDir });
    await nexq.enqueue('default', 'SignUp', [7, 'ann@example.com']);

    expect(await nexq.drain()).to.equal(3);

    expect(mailer.sent.map((m) => m.subject)).to.deep.equal(['Welcome, user #7!', 'Three tips for your first week']);
    nexq.refuteEnqueued();
  });

  it('in inline mode, a job that fails makes enqueue reject', async () => {
    const nexq = createTestNexq({ mode: 'inline', jobsDir });

    const failure = await nexq.enqueue('default', 'SignUp', [8, 'not an address']).then(
      () => undefined,
      (err: unknown) => err,
    );

    expect(failure).to.be.instanceOf(JobFailedError);
    expect((failure as Error).message).to.contain('cannot send mail to "not an address"');
  });
});
