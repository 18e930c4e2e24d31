// The dashboard's read-mostly pages: overview, queues (pause, resume, clear) and one queue's jobs.
// The running jobs and processes are in processes.js, the set pages and the job page in jobs.js.
import { el, getJson, post, table, jobLink, queueLink, number, relative, argsText, say, button } from './dom.js';
import { lineGraph } from './graph.js';
import { filterForm, cursorPager, listQuery } from './filters.js';

const HISTORY_DAYS = 30;

function timeLabel(ms) {
  return new Date(ms).toISOString().slice(11, 19);
}

/** Rates per second between consecutive polls of the counters. */
function liveGraph(samples) {
  const points = samples.slice(1).map((s, i) => {
    const seconds = Math.max(0.001, (s.time - samples[i].time) / 1000);
    return {
      time: s.time,
      processed: Math.max(0, (s.processed - samples[i].processed) / seconds),
      failed: Math.max(0, (s.failed - samples[i].failed) / seconds),
    };
  });
  return lineGraph({
    title: 'Jobs per second, live',
    labels: points.map((p) => timeLabel(p.time)),
    series: [
      { name: 'processed', values: points.map((p) => Math.round(p.processed * 100) / 100) },
      { name: 'failed', values: points.map((p) => Math.round(p.failed * 100) / 100) },
    ],
  });
}

function pausedText(mode) {
  return mode
    ? el('span', { class: `badge paused` }, `paused (${mode})`)
    : el('span', { class: 'badge active' }, 'active');
}

export async function dashboard(_params, _query, env) {
  const [history, queues] = await Promise.all([getJson(`/history?days=${HISTORY_DAYS}`), getJson('/queues')]);
  return el(
    'div',
    {},
    el('h2', {}, 'Live'),
    el('div', { id: 'live-graph' }, liveGraph(env.samples)),
    el('h2', {}, `History, last ${HISTORY_DAYS} days (UTC)`),
    el(
      'div',
      { id: 'history-graph' },
      lineGraph({
        title: `Processed and failed per day, last ${HISTORY_DAYS} days`,
        labels: history.map((d) => d.day),
        series: [
          { name: 'processed', values: history.map((d) => d.processed) },
          { name: 'failed', values: history.map((d) => d.failed) },
        ],
      }),
    ),
    el('h2', {}, 'Queues'),
    table(
      ['Queue', 'Size', 'Latency', 'State'],
      queues.map((q) => [queueLink(q.queue), number(q.size), `${q.latency.toFixed(1)} s`, pausedText(q.paused)]),
      'No queues yet.',
    ),
  );
}

export async function act(what, action, rerender) {
  try {
    await action();
    say(what);
  } catch (err) {
    say(`${what} failed: ${err.message}`, true);
  }
  await rerender();
}

function pauseControls(q, rerender) {
  if (q.paused) {
    return button(
      'Resume',
      () => act(`queue ${q.queue} resumed`, () => post(`/queues/${encodeURIComponent(q.queue)}/resume`), rerender),
      { class: 'resume' },
    );
  }
  const mode = el(
    'select',
    { class: 'pause-mode', 'aria-label': `What to pause of ${q.queue}` },
    el('option', { value: 'out' }, 'processing'),
    el('option', { value: 'in' }, 'enqueues'),
    el('option', { value: 'all' }, 'both'),
  );
  const pause = button(
    'Pause',
    () =>
      act(
        `queue ${q.queue} paused (${mode.value})`,
        () => post(`/queues/${encodeURIComponent(q.queue)}/pause`, { mode: mode.value }),
        rerender,
      ),
    { class: 'pause' },
  );
  return el('span', {}, pause, ' ', mode);
}

function clearButton(q, rerender) {
  const clear = () => {
    if (!window.confirm(`Delete all ${q.size} job(s) waiting in ${q.queue}?`)) return;
    const path = `/queues/${encodeURIComponent(q.queue)}/clear`;
    return act(`queue ${q.queue} cleared`, () => post(path), rerender);
  };
  return button('Clear', clear, { class: 'clear danger' });
}

export async function queuesPage(_params, _query, env) {
  const queues = await getJson('/queues');
  return el(
    'div',
    {},
    el('h2', {}, 'Queues'),
    el(
      'p',
      { class: 'hint' },
      'Pausing processing stops every node fetching from the queue (jobs running finish); pausing enqueues refuses new jobs.',
    ),
    // Queues holding jobs that no live node serves: a misspelt name, or a node not running.
    ...queues.filter((q) => q.unserved).map((q) => el('p', { class: 'warning', 'data-queue': q.queue }, q.unserved)),
    table(
      ['Queue', 'Size', 'Latency', 'State', ''],
      queues.map((q) => ({
        attrs: { 'data-queue': q.queue },
        cells: [
          queueLink(q.queue),
          el('span', { class: 'size' }, number(q.size)),
          `${q.latency.toFixed(1)} s`,
          pausedText(q.paused),
          el('span', {}, pauseControls(q, env.rerender), ' ', clearButton(q, env.rerender)),
        ],
      })),
      'No queues yet.',
    ),
  );
}

const PAGE_SIZE = 50;

/** Deletes one waiting job (with its index entry and unique lock), unless a node fetched it meanwhile. */
function deleteQueuedButton(queue, jid, rerender) {
  const remove = () => {
    if (!window.confirm(`Delete job ${jid} from ${queue}?`)) return;
    return act(
      `job ${jid} deleted`,
      async () => {
        const { results } = await post(`/queues/${encodeURIComponent(queue)}/delete`, { jids: [jid] });
        if (results[0]?.error) throw new Error(results[0].error);
      },
      rerender,
    );
  };
  return button('Delete', remove, { class: 'delete danger' });
}

export async function queuePage([queue], query, env) {
  const base = `#/queues/${encodeURIComponent(queue)}`;
  const data = await getJson(`/queues/${encodeURIComponent(queue)}?${listQuery(query, PAGE_SIZE)}`);
  return el(
    'div',
    {},
    el('h2', {}, `Queue ${queue} `, el('small', {}, `${number(data.size)} waiting, next to run first`)),
    // A fair queue serves its jobs' groups in turn: its groups page lists them.
    data.fair
      ? el('p', {}, el('a', { href: `${base}/groups`, class: 'groups-link' }, 'Groups of this fair queue ›'))
      : '',
    data.cursorGone
      ? el('p', { class: 'hint' }, 'The jobs of the last page ran meanwhile: this page starts at the next to run.')
      : '',
    // The jobs shown that no live node would run now: no node serves the queue, or has their class's handler.
    ...data.warnings.map((w) => el('p', { class: 'warning' }, w)),
    filterForm(base, query),
    table(
      ['Jid', 'Class', 'Enqueued', 'Args', ''],
      data.jobs.map((j) => ({
        attrs: { 'data-jid': j.jid ?? '' },
        cells: [
          jobLink(j.jid),
          j.class ?? '?',
          relative(j.enqueued_at),
          el('code', {}, argsText(j)),
          j.jid ? deleteQueuedButton(queue, j.jid, env.rerender) : '',
        ],
      })),
      'No job here.',
    ),
    cursorPager(base, query, data.next),
  );
}
