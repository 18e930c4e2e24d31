// The schedule, retry and dead pages (view, retry, delete, bulk actions) and the page of one job.
import { el, getJson, post, table, jobLink, queueLink, relative, argsText, say, button, number } from './dom.js';
import { filterForm, cursorPager, listQuery } from './filters.js';

const PAGE_SIZE = 50;

export const SETS = {
  schedule: { path: 'scheduled', title: 'Scheduled', retryText: 'Enqueue now', empty: 'Nothing is scheduled.' },
  retry: { path: 'retries', title: 'Retries', retryText: 'Retry now', empty: 'No job waits for a retry.' },
  dead: { path: 'dead', title: 'Dead', retryText: 'Retry now', empty: 'No dead jobs.' },
};

/** Runs a bulk or single action on `set`, says what happened, and shows the page again. */
async function setAction(set, action, body, rerender) {
  try {
    const result = await post(`/sets/${set}/${action}`, body);
    const verb = { retry: 'moved to their queues', delete: 'deleted', kill: 'moved to the dead set' }[action];
    if (result.results) {
      const failed = result.results.filter((r) => r.error);
      const done = result.results.length - failed.length;
      say(
        `${done} job(s) ${verb}${failed.length ? `; ${failed.map((f) => f.error).join('; ')}` : ''}`,
        failed.length > 0,
      );
    } else say(`${action === 'retry' ? result.moved.length : (result.deleted ?? result.killed)} job(s) ${verb}`);
  } catch (err) {
    say(`${action} failed: ${err.message}`, true);
  }
  await rerender();
}

function killButton(jid, rerender) {
  return button('Kill', () => setAction('retry', 'kill', { jids: [jid] }, rerender), {
    class: 'kill',
    title: 'Move it to the dead set now',
  });
}

function errorText(j) {
  return j.error_class || j.error_message ? `${j.error_class ?? ''}: ${j.error_message ?? ''}` : '–';
}

export function setPage(set) {
  const info = SETS[set];
  return async (_params, query, env) => {
    const data = await getJson(`/sets/${set}?${listQuery(query, PAGE_SIZE)}`);
    const boxes = [];
    const selected = () => boxes.filter((b) => b.checked).map((b) => b.value);
    const bulk = (action) => {
      const jids = selected();
      if (jids.length === 0) return say('Select jobs first.', true);
      return setAction(set, action, { jids }, env.rerender);
    };
    const all = (action, text) => {
      if (!window.confirm(`${text}: all ${data.size} job(s) in ${info.title.toLowerCase()}?`)) return;
      return setAction(set, action, { all: true }, env.rerender);
    };
    const selectAll = el('input', {
      type: 'checkbox',
      class: 'select-all',
      'aria-label': 'Select every job on this page',
      onchange: (e) => boxes.forEach((b) => (b.checked = e.target.checked)),
    });
    const rows = data.jobs.map((j) => {
      const box = j.jid
        ? el('input', { type: 'checkbox', class: 'select', value: j.jid, 'aria-label': `Select ${j.jid}` })
        : '';
      if (box) boxes.push(box);
      const actions = j.jid
        ? [
            button(info.retryText, () => setAction(set, 'retry', { jids: [j.jid] }, env.rerender), { class: 'retry' }),
            ' ',
            button('Delete', () => setAction(set, 'delete', { jids: [j.jid] }, env.rerender), { class: 'delete' }),
            set === 'retry' ? [' ', killButton(j.jid, env.rerender)] : '',
          ]
        : [];
      const cells = [box, relative(j.at), jobLink(j.jid), j.class ?? '?', queueLink(j.queue)];
      if (set !== 'schedule')
        cells.push(
          j.retry_count ?? '–',
          el(
            'span',
            { class: 'error-text', title: (j.error_backtrace ?? []).slice(0, 5).join('\n') || null },
            errorText(j),
          ),
        );
      cells.push(el('code', {}, argsText(j)), el('span', { class: 'actions' }, actions));
      return { attrs: { 'data-jid': j.jid ?? '' }, cells };
    });
    const headers = [
      selectAll,
      set === 'schedule' ? 'Runs' : set === 'retry' ? 'Next retry' : 'Died',
      'Jid',
      'Class',
      'Queue',
    ];
    if (set !== 'schedule') headers.push('Retries', 'Error');
    headers.push('Args', '');
    return el(
      'div',
      {},
      el('h2', {}, `${info.title} `, el('small', { class: 'set-size' }, `${number(data.size)} job(s)`)),
      el(
        'p',
        { class: 'bulk' },
        button(`${info.retryText}: selected`, () => bulk('retry'), { class: 'bulk-retry' }),
        ' ',
        button('Delete selected', () => bulk('delete'), { class: 'bulk-delete' }),
        ' ',
        button(`${info.retryText}: all`, () => all('retry', info.retryText), { class: 'all-retry' }),
        ' ',
        button('Delete all', () => all('delete', 'Delete'), { class: 'all-delete danger' }),
        set === 'retry'
          ? [
              ' ',
              button('Kill selected', () => bulk('kill'), { class: 'bulk-kill' }),
              ' ',
              button('Kill all', () => all('kill', 'Kill'), { class: 'all-kill danger' }),
            ]
          : '',
        ' ',
        button('Refresh', () => env.rerender()),
      ),
      filterForm(`#/${info.path}`, query),
      table(headers, rows, info.empty),
      cursorPager(`#/${info.path}`, query, data.next),
    );
  };
}

/** Cancels a running job: its thread is stopped and the job goes to the dead set. */
export function cancelButton(jid, rerender) {
  const cancel = async () => {
    if (!window.confirm(`Cancel the running job ${jid}? It goes to the dead set.`)) return;
    try {
      await post(`/jobs/${encodeURIComponent(jid)}/cancel`);
      say(`job ${jid} cancelled: it is in the dead set`);
    } catch (err) {
      say(`cancel failed: ${err.message}`, true);
    }
    await rerender();
  };
  return button('Cancel', cancel, { class: 'cancel danger' });
}

function placeText(f) {
  if (f.where === 'queue') return ['waiting in queue ', queueLink(f.queue)];
  if (f.where === 'running') return ['running on node ', el('strong', {}, f.node), ' (queue ', queueLink(f.queue), ')'];
  return [`in the ${f.where} set, `, f.where === 'dead' ? 'died ' : 'due ', relative(f.at)];
}

function fieldRows(job, backtrace) {
  if (!job) return [];
  const time = (v) => (typeof v === 'number' ? `${new Date(v > 1e11 ? v : v * 1000).toISOString()} (${v})` : '–');
  const rows = [
    ['class', job.class ?? '?'],
    ['queue', job.queue ?? '?'],
    ['args', el('code', {}, JSON.stringify(job.args))],
    ['created_at', time(job.created_at)],
    ['enqueued_at', time(job.enqueued_at)],
    ['retry', JSON.stringify(job.retry ?? null)],
    ['retry_count', job.retry_count ?? '–'],
  ];
  if (job.error_class || job.error_message)
    rows.push(['error', el('span', { class: 'error-text' }, `${job.error_class ?? ''}: ${job.error_message ?? ''}`)]);
  if (job.failed_at) rows.push(['failed_at', time(job.failed_at)]);
  if (Array.isArray(backtrace)) rows.push(['backtrace', el('pre', { class: 'backtrace' }, backtrace.join('\n'))]);
  return rows;
}

export async function jobPage([jid], _query, env) {
  let data;
  try {
    data = await getJson(`/jobs/${encodeURIComponent(jid)}`);
  } catch (err) {
    return el('div', {}, el('h2', {}, `Job ${jid}`), el('p', { class: 'empty', id: 'job-missing' }, err.message));
  }
  return el(
    'div',
    { id: 'job', 'data-jid': jid },
    el('h2', {}, 'Job ', el('code', {}, jid)),
    data.found.map((f) => {
      const inSet = ['schedule', 'retry', 'dead'].includes(f.where);
      const actions = inSet
        ? el(
            'p',
            {},
            button(SETS[f.where].retryText, () => setAction(f.where, 'retry', { jids: [jid] }, env.rerender), {
              class: 'retry',
            }),
            ' ',
            button('Delete', () => setAction(f.where, 'delete', { jids: [jid] }, env.rerender), { class: 'delete' }),
            f.where === 'retry' ? [' ', killButton(jid, env.rerender)] : '',
          )
        : f.where === 'running'
          ? el('p', {}, cancelButton(jid, env.rerender))
          : '';
      return el(
        'section',
        { class: 'place', 'data-where': f.where },
        el('h3', { class: 'where' }, placeText(f)),
        actions,
        table(['Field', 'Value'], fieldRows(f.job, f.backtrace)),
        el('h4', {}, 'Payload'),
        el('pre', { class: 'payload' }, f.raw),
      );
    }),
  );
}
