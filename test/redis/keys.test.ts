// Key names: Exq's layout with a namespace, Sidekiq's exact names without one.
import { expect } from 'chai';
import { Keys, statDay } from '../../src/redis/keys';

describe('Keys', () => {
  it('builds Exq\'s key names under the namespace exq', () => {
    const keys = new Keys('exq');
    expect(keys.queues).to.equal('exq:queues');
    expect(keys.queue('default')).to.equal('exq:queue:default');
    expect(keys.backup('node1', 'default')).to.equal('exq:queue:backup::node1::default');
    expect(keys.schedule).to.equal('exq:schedule');
    expect(keys.retry).to.equal('exq:retry');
    expect(keys.dead).to.equal('exq:dead');
    expect(keys.stat('processed')).to.equal('exq:stat:processed');
    expect(keys.stat('failed', '2024-01-31')).to.equal('exq:stat:failed:2024-01-31');
    expect(keys.processes).to.equal('exq:processes');
    expect(keys.process('host:1:abc')).to.equal('exq:host:1:abc');
    expect(keys.processWorkers('host:1:abc')).to.equal('exq:host:1:abc:workers');
  });

  it('builds Sidekiq\'s exact key names with the empty namespace', () => {
    const keys = new Keys('');
    expect(keys.queues).to.equal('queues');
    expect(keys.queue('default')).to.equal('queue:default');
    expect(keys.schedule).to.equal('schedule');
    expect(keys.retry).to.equal('retry');
    expect(keys.dead).to.equal('dead');
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

describe('statDay', () => {
  it('is the UTC date as YYYY-MM-DD', () => {
    expect(statDay(new Date('2024-01-31T23:59:59.999Z'))).to.equal('2024-01-31');
    expect(statDay(new Date('2024-02-01T00:00:00+02:00'))).to.equal('2024-01-31');
  });
});
