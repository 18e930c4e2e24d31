// GET /api/schedules: the schedules set at run time, with their zone and next run.
import { expect } from 'chai';
import { useNodes } from '../support/node';
import { call, startWebNode } from './support';

describe('dashboard API: schedules', () => {
  const t = useNodes();

  it('lists the schedules kept in Redis with their next run', async () => {
    const { nexq, url } = await startWebNode(t);
    expect((await call(url, '/api/schedules')).body).to.deep.equal([]);
    await nexq.schedules.set('hourly', { cron: '0 * * * *', queue: 'q', class: 'Record', args: [1] });
    const [listed] = (await call(url, '/api/schedules')).body;
    expect(listed).to.include({ name: 'hourly', cron: '0 * * * *', tz: 'UTC', queue: 'q', class: 'Record' });
    expect(listed.args).to.deep.equal([1]);
    expect(new Date(listed.nextRunAt).getUTCMinutes()).to.equal(0);
  });
});
