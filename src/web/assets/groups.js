// A fair queue's groups page (docs/fair-queues.md): its groups most waiting first, one page at a
// time (a queue may hold 100,000 groups), each with its jobs waiting and running, paused or held back
// by a limit, its jobs started in the last minutes, and Pause or Resume.
import { el, getJson, post, table, number, button, queueLink } from './dom.js';
import { act } from './views.js';

const PAGE_SIZE = 50;

function groupName(group) {
  return group === '' ? el('em', {}, '(default)') : group;
}

const LIMITED = { concurrency: 'at groupConcurrency', rate: 'out of rate room' };

function stateCell(g) {
  return el(
    'span',
    { class: 'group-state' },
    g.paused
      ? el('span', { class: 'badge paused' }, 'paused')
      : g.limited
        ? ''
        : el('span', { class: 'badge active' }, 'active'),
    g.limited ? el('span', { class: `badge limited limited-${g.limited}` }, LIMITED[g.limited] ?? g.limited) : '',
  );
}

function pauseButton(queue, g, rerender) {
  const name = g.group === '' ? '(default)' : g.group;
  const what = g.paused ? 'resume' : 'pause';
  const path = `/queues/${encodeURIComponent(queue)}/groups/${what}`;
  return button(
    g.paused ? 'Resume' : 'Pause',
    () => act(`group ${name} of ${queue} ${what}d`, () => post(path, { group: g.group }), rerender),
    { class: what },
  );
}

function limitsText(limits) {
  if (!limits)
    return 'This node does not serve the queue fair, so it does not know its limits per group: none is shown as limited.';
  const parts = [];
  if (limits.groupConcurrency !== null) parts.push(`groupConcurrency ${limits.groupConcurrency}`);
  if (limits.groupRateLimit !== null)
    parts.push(`groupRateLimit ${limits.groupRateLimit.limit} per ${limits.groupRateLimit.per} s`);
  return parts.length ? `Limits per group: ${parts.join(', ')}.` : 'No limit per group.';
}

function pager(base, data) {
  const link = (offset) => `${base}${offset > 0 ? `?offset=${offset}` : ''}`;
  const last = Math.min(data.offset + data.groups.length, data.total);
  return el(
    'p',
    { class: 'pager' },
    data.offset > 0
      ? el('a', { href: link(Math.max(0, data.offset - data.limit)), class: 'previous' }, '‹ previous')
      : '',
    ' ',
    el(
      'span',
      { class: 'range' },
      data.total ? `${number(data.offset + 1)}–${number(last)} of ${number(data.total)}` : '',
    ),
    ' ',
    last < data.total ? el('a', { href: link(data.offset + data.limit), class: 'next' }, 'next ›') : '',
  );
}

export async function groupsPage([queue], query, env) {
  const base = `#/queues/${encodeURIComponent(queue)}/groups`;
  const offset = /^\d+$/.test(query.get('offset') ?? '') ? query.get('offset') : '0';
  const data = await getJson(`/queues/${encodeURIComponent(queue)}/groups?limit=${PAGE_SIZE}&offset=${offset}`);
  return el(
    'div',
    {},
    el(
      'h2',
      {},
      'Groups of ',
      queueLink(queue),
      ' ',
      el('small', {}, `${number(data.total)} groups, most waiting first`),
    ),
    el(
      'p',
      { class: 'hint' },
      `${limitsText(data.limits)} Started: jobs the nodes took of the group in the last ${data.recentMinutes} minutes. `,
      'Jobs still in the queue’s list are not in their groups yet. Pausing a group stops every node starting its jobs; they keep their place.',
    ),
    table(
      ['Group', 'Waiting', 'Running', 'State', `Started (${data.recentMinutes} min)`, ''],
      data.groups.map((g) => ({
        attrs: { 'data-group': g.group },
        cells: [
          el('span', { class: 'group' }, groupName(g.group)),
          el('span', { class: 'waiting' }, number(g.waiting)),
          el('span', { class: 'running' }, number(g.running)),
          stateCell(g),
          el('span', { class: 'started' }, number(g.started15m)),
          pauseButton(queue, g, env.rerender),
        ],
      })),
      'No group has jobs waiting or running, or is paused.',
    ),
    pager(base, data),
  );
}
