// A small client of the v1 HTTP API for the load benchmark and the soak:
// conversations, and one turn read to the end of its SSE stream (the AI SDK
// UI message stream), summarised.

async function call(base, method, path, body) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

export const createConversation = async (base) => (await call(base, 'POST', '/v1/conversations', {})).id;
export const deleteConversation = (base, id) => call(base, 'DELETE', `/v1/conversations/${id}`);
export const catalog = (base, id) => call(base, 'GET', `/v1/conversations/${id}/catalog`);
export const readResource = (base, id, server, uri) =>
  call(base, 'POST', `/v1/conversations/${id}/resources/read`, { server, uri });

/**
 * Runs one turn and reads its stream to the end. Returns the wall time, the
 * reads the model made (server, uri, cache source, the text it was given),
 * every tool's output as the step shows it (`outputs`: name and output),
 * the answer, the finish metadata and every problem seen: a non-200 status,
 * an `error` chunk, a failed tool call, a stream without `finish`.
 */
export async function runTurn(base, id, text) {
  const started = performance.now();
  const startedAt = Date.now();
  const problems = [];
  const reads = [];
  const outputs = [];
  let answer = '';
  let metadata;
  try {
    const response = await fetch(`${base}/v1/conversations/${id}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    });
    const body = await response.text();
    if (!response.ok) {
      problems.push(`HTTP ${response.status}: ${body.slice(0, 200)}`);
    } else {
      let finished = false;
      const calls = new Map();
      for (const line of body.split('\n')) {
        if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
        const chunk = JSON.parse(line.slice(6));
        if (chunk.type === 'tool-input-available') calls.set(chunk.toolCallId, chunk);
        else if (chunk.type === 'tool-output-available') {
          const name = calls.get(chunk.toolCallId)?.toolName;
          const o = chunk.output;
          outputs.push({ name, output: o });
          if (name === 'read_resource') reads.push({ server: o.server, uri: o.uri, cache: o.cache, text: o.text });
        } else if (chunk.type === 'tool-output-error')
          problems.push(`tool error: ${String(chunk.errorText).slice(0, 200)}`);
        else if (chunk.type === 'error') problems.push(`stream error: ${String(chunk.errorText).slice(0, 200)}`);
        else if (chunk.type === 'text-delta') answer += chunk.delta;
        else if (chunk.type === 'finish') {
          finished = true;
          metadata = chunk.messageMetadata;
        }
      }
      if (!finished) problems.push('stream ended without a finish chunk');
    }
  } catch (error) {
    problems.push(`request failed: ${error.cause?.code ?? error.message}`);
  }
  return { ms: performance.now() - started, startedAt, reads, outputs, answer, metadata, problems };
}

/** p-th percentile (nearest rank) of numbers. */
export function percentile(values, p) {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
