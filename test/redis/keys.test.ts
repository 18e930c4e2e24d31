// Key names: Exq's layout with a namespace, Sidekiq's exact names without one.
import { expect } from 'chai';
import { KeyLayoutError, Keys, statDay } from '../../src/redis/keys';

describe('Keys', () => {
  it("builds Exq's key names under the namespace exq", () => {
    const keys = new Keys('exq');
    expect(keys.queues).to.equal('exq:queues');
    expect(keys.queue('default')).to.equal('exq:queue:default');
    expect(keys.backup('node1', 'default')).to.equal('exq:queue:backup::node1::default');
    expect(keys.schedule('default')).to.equal('exq:schedule');
    expect(keys.retry('default')).to.equal('exq:retry');
    expect(keys.dead('default')).to.equal('exq:dead');
    expect(keys.stat('processed')).to.equal('exq:stat:processed');
    expect(keys.processed('default')).to.equal('exq:nexq:processed:default');
    expect(keys.stat('failed', '2024-01-31')).to.equal('exq:stat:failed:2024-01-31');
    expect(keys.processes).to.equal('exq:processes');
    expect(keys.process('host:1:abc')).to.equal('exq:host:1:abc');
    expect(keys.processWorkers('host:1:abc')).to.equal('exq:host:1:abc:workers');
    expect(keys.exqHeartbeats).to.equal('exq:heartbeats');
    // Exq.Redis.Heartbeat builds it with the colon even for the empty namespace.
    expect(new Keys('').exqHeartbeats).to.equal(':heartbeats');
    expect(new Keys('{exq}').exqHeartbeats).to.equal('{exq}:heartbeats');
  });

  it("builds Sidekiq's exact key names with the empty namespace", () => {
    const keys = new Keys('');
    expect(keys.queues).to.equal('queues');
    expect(keys.queue('default')).to.equal('queue:default');
    expect(keys.schedule('default')).to.equal('schedule');
    expect(keys.retry('default')).to.equal('retry');
    expect(keys.dead('default')).to.equal('dead');
    expect(keys.stat('processed')).to.equal('stat:processed');
    expect(keys.stat('processed', '2024-01-31')).to.equal('stat:processed:2024-01-31');
    expect(keys.processes).to.equal('processes');
    expect(keys.process('host:1:abc')).to.equal('host:1:abc');
    expect(keys.processWorkers('host:1:abc')).to.equal('host:1:abc:workers');
    expect(keys.processSignals('host:1:abc')).to.equal('host:1:abc-signals');
  });

  it('matches every backup list of one node with its backup pattern, escaping glob characters', () => {
    expect(new Keys('exq').backupPattern('node1')).to.equal('exq:queue:backup::node1::*');
    expect(new Keys('exq').backupPattern('n*[1]?')).to.equal('exq:queue:backup::n\\*\\[1\\]\\?::*');
  });

  it('escapes glob characters of the namespace in the backup pattern too', () => {
    expect(new Keys('app[1]*').backupPattern('n')).to.equal('app\\[1\\]\\*:queue:backup::n::*');
  });
});

describe('Keys in the per-queue layout', () => {
  const keys = new Keys('app', 'per-queue');

  it("gives every key of a queue that queue's hash tag, and the node-wide keys the namespace's", () => {
    expect(keys.queue('mail')).to.equal('app:queue:{mail}');
    expect(keys.backup('n1', 'mail')).to.equal('app:queue:backup::n1::{mail}');
    expect(keys.schedule('mail')).to.equal('app:schedule:{mail}');
    expect(keys.retry('mail')).to.equal('app:retry:{mail}');
    expect(keys.dead('mail')).to.equal('app:dead:{mail}');
    expect(keys.running('mail')).to.equal('app:nexq:running:{mail}');
    expect(keys.jobIndex('mail')).to.equal('app:nexq:jobs:{mail}');
    expect(keys.paused('mail')).to.equal('app:nexq:paused:{mail}');
    expect(keys.uniqueLock('k', 'mail')).to.equal('app:nexq:unique:{mail}:k');
    expect(keys.periodic('p', 'mail')).to.equal('app:nexq:periodic:{mail}:p');
    expect(keys.processed('mail')).to.equal('app:nexq:processed:{mail}');
    expect([
      keys.queues,
      keys.nodes,
      keys.processes,
      keys.stat('processed'),
      keys.process('h:1'),
      keys.queueMetrics('2026-01-02T03:04'),
    ]).to.deep.equal([
      '{app}:queues',
      '{app}:nexq:nodes',
      '{app}:processes',
      '{app}:stat:processed',
      '{app}:h:1',
      '{app}:nexq:queue-metrics:2026-01-02T03:04',
    ]);
    expect(keys.group('mail')).to.equal('mail');
    expect(new Keys('app').group('mail')).to.equal('');
  });

  it('lists one set key per queue, and one in the shared layout', () => {
    expect(keys.jobSets('dead', ['b', 'a', 'b'])).to.deep.equal([
      { key: 'app:dead:{a}', queue: 'a' },
      { key: 'app:dead:{b}', queue: 'b' },
    ]);
    expect(new Keys('app').jobSets('dead', ['a', 'b'])).to.deep.equal([{ key: 'app:dead' }]);
  });

  it("reads node and queue back from a backup list's key, in both layouts", () => {
    expect(keys.parseBackup(keys.backup('host-1::x', 'mail'))).to.deep.equal({ nodeId: 'host-1::x', queue: 'mail' });
    expect(keys.parseBackup(keys.backup('n::1', 'mail'), 'n::1')).to.deep.equal({ nodeId: 'n::1', queue: 'mail' });
    expect(keys.parseBackup('app:queue:mail')).to.equal(undefined);
    expect(new Keys('exq').parseBackup('exq:queue:backup::n1::default')).to.deep.equal({
      nodeId: 'n1',
      queue: 'default',
    });
  });

  it('refuses names that would break the tags: braces in a queue or the namespace, an empty namespace', () => {
    expect(() => keys.queue('a{b}')).to.throw(KeyLayoutError, /queue name "a\{b\}"/);
    expect(() => keys.queue('')).to.throw(KeyLayoutError);
    expect(() => new Keys('{app}', 'per-queue')).to.throw(KeyLayoutError, /namespace without braces/);
    expect(() => new Keys('', 'per-queue')).to.throw(KeyLayoutError);
    expect(() => keys.classRunning('C')).to.throw(KeyLayoutError, /class limits/);
  });
});

describe('statDay', () => {
  it('is the UTC date as YYYY-MM-DD', () => {
    expect(statDay(new Date('2024-01-31T23:59:59.999Z'))).to.equal('2024-01-31');
    expect(statDay(new Date('2024-02-01T00:00:00+02:00'))).to.equal('2024-01-31');
  });
});
