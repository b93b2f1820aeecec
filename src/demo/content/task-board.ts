/** The demo's MCP Apps view (`ui://demo/task-board`, `text/html;profile=mcp-app`). */
export const TASK_BOARD_URI = 'ui://demo/task-board';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The task board: one self-contained page (no network: it runs under the
 * default view CSP), speaking the MCP Apps postMessage JSON-RPC by hand —
 * `ui/initialize`, then `ui/notifications/initialized`; it renders the tasks
 * of `ui/notifications/tool-result`, calls `complete_task`, `create_task`
 * (which the user approves in the chat) and the app-only `board_tasks`
 * through the host, reports its height, and answers `ui/resource-teardown`.
 * `headline` (the guidelines' first line), named as such in the footer, makes the document change when the
 * guidelines do, so a host can be seen serving the fresh copy.
 */
export function taskBoardHtml(headline: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Task board</title>
<style>
  :root { color-scheme: light dark; font: 14px/1.4 system-ui, sans-serif; }
  body { margin: 0; padding: 12px; }
  h1 { font-size: 15px; margin: 0 0 2px; }
  .rule { font-size: 12px; opacity: .7; margin: 0 0 10px; }
  ul { list-style: none; margin: 0 0 10px; padding: 0; }
  li { display: flex; gap: 8px; align-items: center; padding: 6px 0; border-bottom: 1px solid #8884; }
  li span { flex: 1; }
  .meta { font-size: 12px; opacity: .7; }
  form { display: flex; flex-wrap: wrap; gap: 6px; }
  input { flex: 1; min-width: 0; padding: 4px 6px; }
  #status { font-size: 12px; min-height: 1.2em; margin-top: 6px; }
</style>
</head>
<body>
<h1>Open tasks</h1>
<p class="rule">Mark a task done, or add one below.</p>
<ul id="tasks"><li><span>Waiting for the tool's result…</span></li></ul>
<form id="add"><input id="title" placeholder="New task" maxlength="200" required><button>Add task</button></form>
<p class="rule" id="headline">Team rules (task://guidelines): ${escapeHtml(headline)}</p>
<div id="status" role="status"></div>
<script>
(() => {
  const pending = new Map();
  let nextId = 1;
  const send = (message) => window.parent.postMessage({ jsonrpc: '2.0', ...message }, '*');
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ id, method, params });
    });
  const notify = (method, params) => send({ method, params });
  const status = (text) => { document.getElementById('status').textContent = text; };

  function render(tasks) {
    const list = document.getElementById('tasks');
    list.replaceChildren();
    if (!tasks.length) {
      const empty = document.createElement('li');
      empty.innerHTML = '<span>No open tasks.</span>';
      list.append(empty);
    }
    for (const task of tasks) {
      const item = document.createElement('li');
      const label = document.createElement('span');
      label.textContent = '#' + task.id + ' ' + task.title;
      const meta = document.createElement('span');
      meta.className = 'meta';
      meta.textContent = [task.assignee, task.estimateHours ? task.estimateHours + ' h' : ''].filter(Boolean).join(' · ');
      const done = document.createElement('button');
      done.textContent = 'Mark done';
      done.onclick = () => act('complete_task', { id: task.id });
      item.append(label, meta, done);
      list.append(item);
    }
  }

  function showResult(result) {
    if (result && result.structuredContent && Array.isArray(result.structuredContent.tasks)) render(result.structuredContent.tasks);
    else if (result && result.isError) status('The board could not be loaded.');
  }

  async function act(name, args) {
    status('Working…');
    try {
      const result = await request('tools/call', { name, arguments: args });
      const text = (result.content || []).map((c) => (c.type === 'text' ? c.text : '')).join(' ');
      status(result.isError ? 'Failed: ' + text : text);
      showResult(await request('tools/call', { name: 'board_tasks', arguments: {} }));
    } catch (error) {
      status('Not done: ' + (error && error.message ? error.message : String(error)));
    }
  }

  document.getElementById('add').onsubmit = (event) => {
    event.preventDefault();
    const input = document.getElementById('title');
    const title = input.value.trim();
    if (!title) return;
    input.value = '';
    act('create_task', { title });
  };

  window.addEventListener('message', (event) => {
    if (event.source !== window.parent) return;
    const message = event.data;
    if (!message || message.jsonrpc !== '2.0') return;
    if (message.method && message.id !== undefined) {
      // Requests from the host: teardown and ping are answered; nothing else is implemented.
      if (message.method === 'ui/resource-teardown' || message.method === 'ping') return send({ id: message.id, result: {} });
      return send({ id: message.id, error: { code: -32601, message: 'Method not found: ' + message.method } });
    }
    if (message.method === 'ui/notifications/tool-input') return status('Loading…');
    if (message.method === 'ui/notifications/tool-result') return status(''), showResult(message.params);
    if (message.method === 'ui/notifications/tool-cancelled') return status('Cancelled: ' + ((message.params && message.params.reason) || ''));
    if (message.method === 'ui/notifications/host-context-changed' && message.params && message.params.theme)
      return void (document.documentElement.style.colorScheme = message.params.theme);
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.error) waiting.reject(new Error(message.error.message));
    else waiting.resolve(message.result);
  });

  const reportSize = () =>
    notify('ui/notifications/size-changed', { width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight });

  request('ui/initialize', {
    appInfo: { name: 'acme-task-board', version: '1.0.0' },
    appCapabilities: {},
    protocolVersion: '2026-01-26',
  }).then((result) => {
    const theme = result && result.hostContext && result.hostContext.theme;
    if (theme) document.documentElement.style.colorScheme = theme;
    notify('ui/notifications/initialized', {});
    reportSize();
    new ResizeObserver(reportSize).observe(document.documentElement);
  });
})();
</script>
</body>
</html>
`;
}
