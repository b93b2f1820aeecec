// The operator's page: reads /admin/api/overview and /admin/api/servers with the operator key and draws them. Plain
// DOM and SVG, no library: the chart is two series over 30 days (bars and a line), which is less code than a chart
// library's configuration, and the page needs no build step, no CDN and no third-party script under its CSP.

const KEY_ITEM = 'mcp-ondemand.operator-key';
const SVG = 'http://www.w3.org/2000/svg';
const $ = (selector) => document.querySelector(selector);

let key = sessionStorage.getItem(KEY_ITEM) ?? '';
let overview;

class Refused extends Error {}

async function get(path) {
  const response = await fetch(path, { headers: key ? { authorization: `Bearer ${key}` } : {}, cache: 'no-store' });
  if (response.status === 401) throw new Refused();
  if (!response.ok) {
    const body = await response.json().catch(() => undefined);
    throw new Error(body?.error?.message ?? `HTTP ${response.status}`);
  }
  return response.json();
}

/** The key's field and its Open button: hidden where no key is needed (a local service, AUTH_DISABLED). */
function askForKey(asking) {
  for (const element of [$('label[for="key"]'), $('#key'), $('#key-form button[type="submit"]')]) element.hidden = !asking;
}

function say(text, error = false) {
  $('#status').textContent = text;
  $('#status').classList.toggle('error', error);
}

/** Shows nothing of a report: what a refused key gets. */
function clear() {
  overview = undefined;
  $('#report').hidden = true;
  for (const body of document.querySelectorAll('#report tbody')) body.replaceChildren();
  $('#chart').replaceChildren();
  $('#chart-tenant').replaceChildren();
  $('#refresh').hidden = $('#forget').hidden = true;
}

/** The newest load: an older one's late answer (the key-less first load, say) changes nothing — it once cleared the key
 * just entered, and the servers were then asked for without it. */
let loads = 0;

async function load({ asked }) {
  const mine = ++loads;
  say('Loading…');
  let answer;
  try {
    answer = await get('/admin/api/overview');
  } catch (error) {
    if (mine !== loads) return;
    clear();
    if (!(error instanceof Refused)) return say(`The report could not be loaded: ${error.message}`, true);
    sessionStorage.removeItem(KEY_ITEM);
    key = '';
    askForKey(true);
    return asked ? say('The operator key was refused.', true) : say('Enter the operator key.');
  }
  if (mine !== loads) return;
  overview = answer;
  // Answered without a key: the service runs without authentication, and its page asks for none.
  askForKey(Boolean(key));
  if (key) sessionStorage.setItem(KEY_ITEM, key);
  $('#report').hidden = false; // first: the chart is drawn at the width it is shown at
  renderTenants(overview);
  renderChartChoices(overview);
  renderChart();
  renderCache(overview);
  renderPrograms(overview);
  renderFeedback(overview);
  $('#refresh').hidden = false;
  $('#forget').hidden = !key;
  const asOf = `As of ${overview.generatedAt.slice(0, 19).replace('T', ' ')} UTC.`;
  say(key ? asOf : `${asOf} No operator key is needed: this service runs without authentication (AUTH_DISABLED).`);
  await loadServers();
}

const usd = (n) => `$${n.toFixed(n !== 0 && Math.abs(n) < 1 ? 4 : 2)}`;
const count = (n) => Math.round(n).toLocaleString('en-US');
const tokensOf = (counters) => counters.inputTokens + counters.outputTokens;
const percent = (part, whole) => (whole ? `${Math.round((part / whole) * 100)}%` : '—');
const seconds = (ms) => `${(ms / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 })} s`;
const bytes = (n) =>
  n < 1024 ? `${count(n)} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 ** 2).toFixed(1)} MB`;
const plural = (n, one, many) => `${count(n)} ${n === 1 ? one : many}`;

function cell(text, { numeric = false, className } = {}) {
  const td = document.createElement('td');
  td.textContent = text;
  if (numeric) td.classList.add('num');
  if (className) td.classList.add(className);
  return td;
}

function row(tbody, cells, name) {
  const tr = document.createElement('tr');
  if (name) tr.dataset.tenant = name;
  // Each cell names its column, shown on a phone only, where a row is a card of "column value" lines (admin.css).
  const columns = [...tbody.closest('table').querySelectorAll('thead th')].map((th) => th.textContent);
  for (const [i, td] of cells.entries())
    if (columns[i]) td.prepend(Object.assign(document.createElement('span'), { className: 'column', textContent: columns[i] }), ' ');
  tr.append(...cells);
  tbody.append(tr);
}

function budgetLine(label, spent, limit, format) {
  const line = document.createElement('span');
  line.className = 'budget';
  line.textContent = `${label}: ${format(spent)} of ${format(limit)} (${percent(spent, limit)})`;
  if (spent >= limit) line.classList.add('over');
  return line;
}

function renderTenants({ tenants }) {
  const tbody = $('#tenants tbody');
  tbody.replaceChildren();
  for (const tenant of tenants) {
    const { budgets, today, month, live } = tenant;
    const limits = cell('');
    if (budgets.usdPerMonth !== undefined)
      limits.append(budgetLine('Month', month.usd, budgets.usdPerMonth, usd));
    if (budgets.tokensPerDay !== undefined)
      limits.append(budgetLine('Tokens today', tokensOf(today), budgets.tokensPerDay, count));
    if (budgets.userUsdPerDay !== undefined)
      limits.append(Object.assign(document.createElement('span'), {
        className: 'budget',
        textContent: `Each user: ${usd(budgets.userUsdPerDay)} a day`,
      }));
    if (!limits.childElementCount) limits.textContent = 'none';
    row(
      tbody,
      [
        cell(tenant.id),
        cell(usd(today.usd), { numeric: true }),
        cell(count(tokensOf(today)), { numeric: true }),
        cell(usd(month.usd), { numeric: true }),
        limits,
        cell(count(live.conversations), { numeric: true }),
        cell(count(live.tasks), { numeric: true }),
      ],
      tenant.id,
    );
  }
}

function renderCache({ tenants }) {
  const tbody = $('#cache tbody');
  tbody.replaceChildren();
  const all = { readsMemory: 0, readsKv: 0, readsServer: 0 };
  const line = (name, counters) => {
    const reads = counters.readsMemory + counters.readsKv + counters.readsServer;
    row(
      tbody,
      [
        cell(name),
        cell(count(reads), { numeric: true }),
        cell(percent(counters.readsMemory, reads), { numeric: true }),
        cell(percent(counters.readsKv, reads), { numeric: true }),
        cell(percent(counters.readsServer, reads), { numeric: true }),
      ],
      name,
    );
  };
  for (const tenant of tenants) {
    line(tenant.id, tenant.month);
    for (const layer of Object.keys(all)) all[layer] += tenant.month[layer];
  }
  if (tenants.length > 1) line('All tenants', all);
}

/** Each tenant's program runs this month (`run_code`): how many, their wall time, the bytes they were given. */
function renderPrograms({ tenants }) {
  const tbody = $('#programs tbody');
  tbody.replaceChildren();
  for (const { id, month } of tenants)
    row(
      tbody,
      [
        cell(id),
        cell(count(month.programRuns), { numeric: true }),
        cell(seconds(month.programMs), { numeric: true }),
        cell(bytes(month.programReadBytes), { numeric: true }),
      ],
      id,
    );
}

/**
 * Each tenant's days with ratings, newest first, with the share of 👎; then the newest comments. A comment is an end
 * user's own words: set as text, never as markup.
 */
function renderFeedback({ tenants }) {
  const days = $('#feedback tbody');
  const comments = $('#feedback-comments tbody');
  days.replaceChildren();
  comments.replaceChildren();
  for (const tenant of tenants) {
    for (const { day, up, down } of [...tenant.feedback.days].reverse())
      row(
        days,
        [
          cell(tenant.id),
          cell(day),
          cell(count(up), { numeric: true }),
          cell(count(down), { numeric: true }),
          cell(percent(down, up + down), { numeric: true, className: 'share-down' }),
        ],
        tenant.id,
      );
    for (const rating of tenant.feedback.comments)
      row(
        comments,
        [
          cell(tenant.id),
          cell(rating.at.slice(0, 19).replace('T', ' ')),
          cell(rating.rating === 'down' ? 'down 👎' : 'up 👍'),
          cell(rating.comment ?? '', { className: 'comment' }),
          cell(rating.model),
        ],
        tenant.id,
      );
  }
  if (!days.childElementCount) days.append(emptyRow('No ratings in the last 30 days.', 5));
  if (!comments.childElementCount) comments.append(emptyRow('No comments.', 5));
}

function emptyRow(text, columns) {
  const tr = document.createElement('tr');
  const td = cell(text, { className: 'empty' });
  td.colSpan = columns;
  tr.append(td);
  return tr;
}

function renderChartChoices({ tenants }) {
  const select = $('#chart-tenant');
  const options = [['', 'All tenants'], ...tenants.map((t) => [t.id, t.id])];
  select.replaceChildren(...options.map(([value, text]) => Object.assign(new Option(text, value))));
}

/** The days of the chosen tenant, or of all of them summed. */
function daysOf(choice) {
  const chosen = overview.tenants.filter((t) => !choice || t.id === choice);
  return overview.tenants[0]?.days.map((_, i) =>
    chosen.reduce(
      (sum, t) => ({
        day: t.days[i].day,
        tokens: sum.tokens + t.days[i].inputTokens + t.days[i].outputTokens,
        usd: sum.usd + t.days[i].usd,
      }),
      { day: '', tokens: 0, usd: 0 },
    ),
  ) ?? [];
}

function svg(name, attributes, text) {
  const element = document.createElementNS(SVG, name);
  for (const [attribute, value] of Object.entries(attributes)) element.setAttribute(attribute, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

/**
 * Bars of tokens (left axis), a line of dollars (right axis), one per day; each bar's title gives the day's figures.
 * Drawn at the width the figure has, one SVG unit to a CSS pixel, so that its labels keep their size on a phone
 * (a fixed 880-unit drawing shrank them to a third); drawn again when the width changes.
 */
function renderChart() {
  const days = daysOf($('#chart-tenant').value);
  const width = Math.max(280, Math.round($('#chart').clientWidth - 16));
  // An axis with nothing on it has no top label: "1" token or "$0.0001" would be a figure no day had.
  const spentTokens = Math.max(0, ...days.map((d) => d.tokens));
  const spentUsd = Math.max(0, ...days.map((d) => d.usd));
  const maxTokens = spentTokens || 1;
  const maxUsd = spentUsd || 1;
  // Each axis as wide as its longest label (12 px digits are about 7 px wide), so that none is cut on a phone.
  const [left, right] = [count(maxTokens), usd(maxUsd)].map((label) => Math.max(36, label.length * 7 + 12));
  const [height, top, bottom] = [240, 12, 28];
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const step = plotW / Math.max(1, days.length);
  const chart = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-label': `Tokens and dollars per day, ${days[0]?.day} to ${days.at(-1)?.day}: ${count(days.reduce((s, d) => s + d.tokens, 0))} tokens, ${usd(days.reduce((s, d) => s + d.usd, 0))}`,
  });
  chart.append(
    svg('line', { x1: left, y1: top + plotH, x2: left + plotW, y2: top + plotH, stroke: '#8a93a6' }),
    svg('text', { x: left - 6, y: top + plotH, 'text-anchor': 'end' }, '0'),
    svg('text', { x: left + plotW + 6, y: top + plotH }, '$0'),
  );
  if (spentTokens) chart.append(svg('text', { x: left - 6, y: top + 10, 'text-anchor': 'end' }, count(maxTokens)));
  if (spentUsd) chart.append(svg('text', { x: left + plotW + 6, y: top + 10 }, usd(maxUsd)));
  const points = [];
  days.forEach((d, i) => {
    const barH = (d.tokens / maxTokens) * plotH;
    const bar = svg('rect', {
      x: left + i * step + step * 0.15,
      y: top + plotH - barH,
      width: step * 0.7,
      height: barH,
      fill: '#5b8def',
      'data-day': d.day,
    });
    bar.append(svg('title', {}, `${d.day}: ${count(d.tokens)} tokens, ${usd(d.usd)}`));
    chart.append(bar);
    points.push(`${left + i * step + step / 2},${top + plotH - (d.usd / maxUsd) * plotH}`);
    if (i === 0 || i === days.length - 1 || i === Math.floor(days.length / 2))
      chart.append(svg('text', { x: left + i * step + step / 2, y: height - 8, 'text-anchor': 'middle' }, d.day));
  });
  chart.append(svg('polyline', { points: points.join(' '), fill: 'none', stroke: '#d9480f', 'stroke-width': 2 }));
  const legend = document.createElement('p');
  legend.className = 'legend';
  legend.innerHTML =
    '<span><span class="swatch tokens"></span>Tokens (input + output, left axis)</span>' +
    '<span><span class="swatch usd"></span>Dollars (right axis)</span>';
  $('#chart').replaceChildren(chart, legend);
}

async function loadServers() {
  const status = $('#servers-status');
  status.textContent = 'Probing the servers…';
  let servers;
  try {
    ({ servers } = await get('/admin/api/servers'));
  } catch (error) {
    status.textContent = error instanceof Refused ? 'The operator key was refused.' : `Not probed: ${error.message}`;
    return;
  }
  const tbody = $('#servers tbody');
  tbody.replaceChildren();
  for (const server of servers) {
    const warnings = cell('');
    const list = (server.warnings ?? []).map((w) => warningItem(server, w));
    if (server.error) list.unshift(Object.assign(document.createElement('li'), { textContent: server.error }));
    if (list.length) {
      const ul = document.createElement('ul');
      ul.className = 'warnings';
      ul.append(...list);
      warnings.append(ul);
    } else warnings.textContent = 'none';
    row(tbody, [
      cell(server.tenant),
      cell(server.serverInfo ? `${server.id} (${server.serverInfo.name} ${server.serverInfo.version})` : server.id),
      cell(server.status.replace('_', ' '), { className: `status-${server.status}` }),
      cell(server.protocolVersion ?? '—'),
      warnings,
    ]);
  }
  const failing = servers.filter((s) => s.status === 'error').length;
  status.textContent = `${plural(servers.length, 'server', 'servers')}; ${failing} in error; checked ${servers[0]?.checkedAt.slice(0, 19).replace('T', ' ') ?? '—'} UTC.`;
}

/**
 * One warning of a server. A definition that changed since it was approved (`change`: a tool whose calls now ask
 * again, or the instructions) has an Approve button: it approves exactly the digest shown (the server may change
 * again meanwhile; then that new definition asks, and warns, in its turn).
 */
function warningItem(server, warning) {
  const li = document.createElement('li');
  li.textContent = `${warning.method}: ${warning.message}`;
  const change = warning.change;
  if (!change) return li;
  const digest = document.createElement('code');
  digest.textContent = `sha256 ${change.current.slice(0, 12)}…`;
  digest.title = change.current;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'approve';
  button.textContent = change.kind === 'tool' ? 'Approve the new definition' : 'Approve the new instructions';
  button.addEventListener('click', () => void approveChange(server, change, button));
  li.append(' ', digest, ' ', button);
  return li;
}

async function approveChange(server, change, button) {
  button.disabled = true;
  const body = { tenant: server.tenant, server: server.id, kind: change.kind, sha256: change.current };
  if (change.kind === 'tool') body.name = change.name;
  const response = await fetch('/admin/api/definitions/confirm', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
    cache: 'no-store',
  }).catch(() => undefined);
  if (!response?.ok) {
    button.disabled = false;
    const error = await response?.json().catch(() => undefined);
    button.after(` Not approved: ${error?.error?.message ?? (response ? `HTTP ${response.status}` : 'no connection')}`);
    return;
  }
  await loadServers();
}

$('#key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  key = $('#key').value.trim();
  $('#key').value = '';
  void load({ asked: true });
});
$('#refresh').addEventListener('click', () => void load({ asked: true }));
$('#forget').addEventListener('click', () => {
  sessionStorage.removeItem(KEY_ITEM);
  key = '';
  clear();
  say('The key is forgotten in this tab.');
});
$('#chart-tenant').addEventListener('change', renderChart);
let chartWidth = 0;
new ResizeObserver(() => {
  const width = $('#chart').clientWidth;
  if (overview && width && width !== chartWidth) renderChart();
  chartWidth = width;
}).observe($('#chart'));

void load({ asked: false });
