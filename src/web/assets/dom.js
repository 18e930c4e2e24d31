// Small DOM and fetch helpers shared by the dashboard's views. Text always goes in as text nodes,
// never as HTML, so job data cannot inject markup.

/** el('a', { href: '#/', class: 'x', onclick: fn }, 'text', child, ...) */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else if (name === 'class') node.className = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

async function answer(response) {
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error || `${response.status} ${response.statusText}`);
  return body;
}

/**
 * The API's URL for `path`, beside the page (whatever prefix it is mounted under), without the
 * user:pass@ the page may have been opened at: fetch refuses a URL with credentials, and the
 * browser sends the basic auth it was given for the page by itself.
 */
function apiUrl(path) {
  const url = new URL(`api${path}`, location.href);
  url.username = '';
  url.password = '';
  return url.href;
}

/** GET /api<path>, as JSON. */
export async function getJson(path) {
  return answer(await fetch(apiUrl(path), { headers: { Accept: 'application/json' } }));
}

/** POST /api<path> with a JSON body. X-Nexq is the header the server requires of every action. */
export async function post(path, body = {}) {
  return answer(
    await fetch(apiUrl(path), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Nexq': '1' },
      body: JSON.stringify(body),
    }),
  );
}

/** A table; `rows` are arrays of cells (text or nodes), or { cells, attrs } for row attributes. */
export function table(headers, rows, emptyText = 'Nothing here.') {
  if (rows.length === 0) return el('p', { class: 'empty' }, emptyText);
  return el(
    'table',
    {},
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        headers.map((h) => el('th', {}, h)),
      ),
    ),
    el(
      'tbody',
      {},
      rows.map((row) => {
        const { cells, attrs } = Array.isArray(row) ? { cells: row, attrs: {} } : row;
        return el(
          'tr',
          attrs,
          cells.map((c) => el('td', {}, c)),
        );
      }),
    ),
  );
}

export function jobLink(jid) {
  return jid ? el('a', { href: `#/jobs/${encodeURIComponent(jid)}`, class: 'jid' }, jid) : '?';
}

export function queueLink(queue) {
  return queue ? el('a', { href: `#/queues/${encodeURIComponent(queue)}` }, queue) : '?';
}

export function number(n) {
  return typeof n === 'number' ? n.toLocaleString('en-US') : '–';
}

/** "3 min ago", "in 2 h" from an ISO time. */
export function relative(iso) {
  if (!iso) return '–';
  const seconds = (Date.parse(iso) - Date.now()) / 1000;
  const abs = Math.abs(seconds);
  const text =
    abs < 60
      ? `${Math.round(abs)} s`
      : abs < 3600
        ? `${Math.round(abs / 60)} min`
        : abs < 86400
          ? `${Math.round(abs / 3600)} h`
          : `${Math.round(abs / 86400)} d`;
  return el('time', { datetime: iso, title: iso }, seconds < 0 ? `${text} ago` : `in ${text}`);
}

export function clip(text, max = 80) {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function argsText(view) {
  return clip(view.args === null && view.raw !== undefined ? view.raw : JSON.stringify(view.args));
}

/** Shows a line above the page: what an action did, or why it failed. */
export function say(text, isError = false) {
  const box = document.getElementById('message');
  box.textContent = text;
  box.className = isError ? 'error' : 'ok';
  box.hidden = false;
}

export function button(text, onclick, attrs = {}) {
  return el('button', { type: 'button', ...attrs, onclick }, text);
}
