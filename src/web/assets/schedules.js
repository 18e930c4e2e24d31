// The Schedules page: the periodic jobs set at run time (nexq.schedules, nexq schedules), each with
// its cron, its time zone, its next and last run read on that zone's wall clock, and Remove.
import { el, getJson, post, table, queueLink, argsText, button } from './dom.js';
import { act } from './views.js';

/** `2026-12-05 02:00:00` on `zone`'s wall clock (what its cron reads), with how far off it is. */
function inZone(iso, zone) {
  if (!iso) return '–';
  const wall = new Intl.DateTimeFormat('sv-SE', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(iso));
  return el('time', { datetime: iso, title: `${iso} (UTC)` }, `${wall} ${zone}`);
}

function removeButton(s, rerender) {
  const remove = () => {
    if (!window.confirm(`Remove schedule ${s.name}? No more of its jobs are enqueued.`)) return;
    return act(`schedule ${s.name} removed`, () => post(`/schedules/${encodeURIComponent(s.name)}/remove`), rerender);
  };
  return button('Remove', remove, { class: 'remove danger' });
}

export async function schedulesPage(_params, _query, env) {
  const schedules = await getJson('/schedules');
  return el(
    'div',
    {},
    el('h2', {}, 'Schedules ', el('small', {}, 'set at run time; every node runs each tick once across them')),
    el(
      'p',
      { class: 'hint' },
      "Times are on each schedule's own zone, as its cron reads them. The periodic option's entries are each node's own config and are not listed.",
    ),
    table(
      ['Name', 'Cron', 'Zone', 'Next run', 'Last run', 'Queue', 'Class', 'Args', ''],
      schedules.map((s) => ({
        attrs: { 'data-schedule': s.name },
        cells: [
          s.name,
          el('code', {}, s.cron),
          s.tz,
          el('span', { class: 'next-run' }, inZone(s.nextRunAt, s.tz)),
          el('span', { class: 'last-run' }, inZone(s.lastRunAt, s.tz)),
          queueLink(s.queue),
          s.class,
          el('code', {}, argsText(s)),
          removeButton(s, env.rerender),
        ],
      })),
      'No schedules set at run time.',
    ),
  );
}
