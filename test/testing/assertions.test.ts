// assertEnqueued / refuteEnqueued / allEnqueued: plain AssertionErrors that list what was enqueued.
import { AssertionError } from 'node:assert';
import { expect } from 'chai';
import { createTestNexq, TestNexq } from '../../src/testing';
import { jobsDir, thrown } from './support';

describe('nexq/testing assertions', () => {
  let nexq: TestNexq;
  let welcome: string;
  beforeEach(async () => {
    nexq = createTestNexq({ jobsDir });
    welcome = await nexq.enqueue('mail', 'Welcome', ['bob', { plan: 'pro', seats: 3 }]);
    await nexq.enqueue('default', 'Invoice', [42]);
  });

  it('assertEnqueued passes and returns the matching jobs when one matches queue, class and args', () => {
    const found = nexq.assertEnqueued({ queue: 'mail', class: 'Welcome', args: ['bob', { plan: 'pro', seats: 3 }] });
    expect(found.map((j) => j.jid)).to.deep.equal([welcome]);
  });

  it('assertEnqueued compares object args whatever their key order', () => {
    expect(() => nexq.assertEnqueued({ args: ['bob', { seats: 3, plan: 'pro' }] })).not.to.throw();
  });

  it('assertEnqueued matches on any subset of queue, class and args', () => {
    expect(nexq.assertEnqueued({ class: 'Invoice' })).to.have.length(1);
    expect(nexq.assertEnqueued({ queue: 'mail' })).to.have.length(1);
    expect(nexq.assertEnqueued()).to.have.length(2);
  });

  it('assertEnqueued throws an AssertionError when no job matches', () => {
    const err = thrown(() => nexq.assertEnqueued({ class: 'Welcome', args: ['alice'] }));
    expect(err).to.be.instanceOf(AssertionError);
    expect(err.name).to.equal('AssertionError');
  });

  it('assertEnqueued says what it looked for and lists every enqueued job', () => {
    const err = thrown(() => nexq.assertEnqueued({ class: 'Welcome', args: ['alice'] }));
    expect(err.message).to.equal(
      'expected { class: "Welcome", args: ["alice"] } to be enqueued, but no job matches.\n' +
        'Enqueued (2):\n' +
        `  - queue "mail": Welcome ["bob",{"plan":"pro","seats":3}] (jid ${welcome})\n` +
        `  - queue "default": Invoice [42] (jid ${nexq.jobs('default')[0].jid})`,
    );
  });

  it('assertEnqueued says so when nothing was enqueued', () => {
    nexq.clear();
    expect(thrown(() => nexq.assertEnqueued({ queue: 'mail' })).message).to.equal(
      'expected { queue: "mail" } to be enqueued, but no job matches.\nEnqueued: none',
    );
  });

  it('lists a scheduled job with its time', async () => {
    nexq.clear();
    await nexq.enqueueAt('default', new Date('2999-01-01T00:00:00Z'), 'Later', []);
    expect(thrown(() => nexq.assertEnqueued({ class: 'Other' })).message)
      .to.contain('Later [] (jid ')
      .and.contain(', scheduled for 2999-01-01T00:00:00.000Z)');
  });

  it('compares args whole: a prefix of the args does not match', () => {
    expect(() => nexq.assertEnqueued({ class: 'Welcome', args: ['bob'] })).to.throw(AssertionError);
  });

  it('compares args as JSON values: a number does not match its string', () => {
    expect(() => nexq.assertEnqueued({ class: 'Invoice', args: ['42'] })).to.throw(AssertionError);
  });

  it('refuteEnqueued passes when no job matches', () => {
    expect(() => nexq.refuteEnqueued({ class: 'Welcome', queue: 'default' })).not.to.throw();
  });

  it('refuteEnqueued throws an AssertionError listing the jobs that match', () => {
    const err = thrown(() => nexq.refuteEnqueued({ class: 'Welcome' }));
    expect(err).to.be.instanceOf(AssertionError);
    expect(err.message).to.equal(
      'expected no job matching { class: "Welcome" } to be enqueued, but found some.\n' +
        `Matching (1):\n  - queue "mail": Welcome ["bob",{"plan":"pro","seats":3}] (jid ${welcome})`,
    );
  });

  it('allEnqueued returns the matching jobs in enqueue order, and [] when none matches', async () => {
    const second = await nexq.enqueue('mail', 'Welcome', ['carol']);
    expect(nexq.allEnqueued({ class: 'Welcome' }).map((j) => j.jid)).to.deep.equal([welcome, second]);
    expect(nexq.allEnqueued({ class: 'Nope' })).to.deep.equal([]);
  });

  it('refuses a match key it does not know, rather than matching everything', () => {
    const err = thrown(() => nexq.assertEnqueued({ klass: 'Welcome' } as never));
    expect(err).to.be.instanceOf(TypeError);
    expect(err.message).to.contain('unknown key "klass"');
  });

  it('refuses match args that JSON would change, saying how', () => {
    const err = thrown(() => nexq.allEnqueued({ args: [new Date(0)] }));
    expect(err).to.be.instanceOf(TypeError);
    expect(err.message).to.contain('match.args[0] is a Date (JSON writes "1970-01-01T00:00:00.000Z")');
  });

  it('lists at most 20 jobs and counts the rest', async () => {
    for (let i = 0; i < 25; i++) await nexq.enqueue('bulk', 'Many', [i]);
    const message = thrown(() => nexq.assertEnqueued({ class: 'None' })).message;
    expect(message).to.contain('Enqueued (27):').and.contain('… and 7 more');
  });

  it('works with chai: expect(...).to.throw(AssertionError)', () => {
    expect(() => nexq.refuteEnqueued({ queue: 'mail' })).to.throw(AssertionError, /found some/);
  });
});
