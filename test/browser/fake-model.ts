// A stand-in LLM for the chat-client tests: an OpenAI-compatible
// `/v1/chat/completions` endpoint on 127.0.0.1 that the service reaches
// over real HTTP (MODEL=openai-compatible:…), streaming scripted answers
// word by word. It records every request and every request the service
// aborted (a stop must reach the model call), which no in-process mock
// could show. It decides from the conversation, like a tiny model:
//   last message a tool result  → "Done: <first words of the result>"
//   "slowly"                    → 200 words, one every 40 ms (time to press stop)
//   "create a task called X"    → calls demo__create_task {title: X} (needs approval)
//   "where am I"                → calls the client tool get_location
//   "weekly report"             → calls demo__weekly_report (the server then asks the user a question)
//   "build a report"            → calls demo__build_report {seconds: 3} (an MCP task: the answer goes on when it ends)
//   "build a gated report"      → calls gated__build_report {seconds: 3} (the same, after the user approves it)
//   "run a program: <code>"     → calls run_code {code} (the program as typed, to the end of the message)
//   "markdown sample"           → a table, nested lists, a task list and code (markdown-answer.ts), word by word
//   no tools offered            → "Final answer without tools."
//   anything else               → "You said: <the words>"
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MARKDOWN_ANSWER } from './markdown-answer';

export interface FakeModel {
  baseUrl: string;
  /** Each request's body, in order. */
  requests: Array<{
    messages: Array<{ role: string; content?: unknown }>;
    tools?: Array<{ function: { name: string } }>;
  }>;
  /** How many requests the service aborted before the answer ended. */
  aborted: number;
  close(): Promise<void>;
}

type Step = { text: string; delayMs?: number } | { tool: string; args: Record<string, unknown> };

function decide(body: FakeModel['requests'][number]): Step {
  const last = body.messages.at(-1);
  // A user message's own words are its first text part (the service may add a note after them: the user's language).
  const said = Array.isArray(last?.content)
    ? (last.content as Array<{ type?: string; text?: string }>).find((part) => part.type === 'text')?.text
    : undefined;
  const text =
    typeof last?.content === 'string'
      ? last.content
      : last?.role === 'user' && said !== undefined
        ? said
        : JSON.stringify(last?.content ?? '');
  if (last?.role === 'tool') return { text: `Done: ${text.replace(/\s+/g, ' ').slice(0, 80)}` };
  if (/markdown sample/i.test(text)) return { text: MARKDOWN_ANSWER, delayMs: 5 };
  if (!body.tools?.length) return { text: 'Final answer without tools.' };
  if (/slowly/i.test(text)) return { text: Array.from({ length: 200 }, (_, i) => `word${i}`).join(' '), delayMs: 40 };
  const task = text.match(/create a task called ([\w -]+)/i);
  if (task) return { tool: 'demo__create_task', args: { title: task[1]!.trim() } };
  const program = text.match(/run a program: ([\s\S]+)/i);
  if (program) return { tool: 'run_code', args: { code: program[1]! } };
  if (/weekly report/i.test(text)) return { tool: 'demo__weekly_report', args: {} };
  if (/build a report/i.test(text)) return { tool: 'demo__build_report', args: { seconds: 3 } };
  if (/build a gated report/i.test(text)) return { tool: 'gated__build_report', args: { seconds: 3 } };
  if (/where am i/i.test(text) && body.tools.some((t) => t.function.name === 'get_location'))
    return { tool: 'get_location', args: {} };
  return { text: `You said: ${text}` };
}

export async function startFakeModel(port: number): Promise<FakeModel> {
  const model: Omit<FakeModel, 'close' | 'baseUrl'> = { requests: [], aborted: 0 };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', async () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw) as FakeModel['requests'][number];
      model.requests.push(body);
      const step = decide(body);
      let finished = false;
      res.on('close', () => {
        if (!finished) model.aborted++;
      });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (delta: object, finish: string | null = null) =>
        res.write(
          `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
        );
      if ('tool' in step) {
        send({
          role: 'assistant',
          tool_calls: [
            {
              index: 0,
              id: `call_${model.requests.length}`,
              type: 'function',
              function: { name: step.tool, arguments: JSON.stringify(step.args) },
            },
          ],
        });
        send({}, 'tool_calls');
      } else {
        const words = step.text.match(/\S+\s*/g) ?? [];
        for (const word of words) {
          if (res.destroyed) return;
          send({ role: 'assistant', content: word });
          if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
        }
        send({}, 'stop');
      }
      res.write(
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\n`,
      );
      finished = true;
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    ...model,
    get requests() {
      return model.requests;
    },
    get aborted() {
      return model.aborted;
    },
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  } as FakeModel;
}
