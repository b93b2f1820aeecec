// The policy of the fake model provider the workers tests reach through the
// real provider packages (bench/lib/fake-model.mjs on FAKE_MODEL_PORT: the
// OpenAI Responses and Anthropic Messages APIs): a tiny model that reads the
// guidelines when asked about them, reads forever when told to loop (the step
// limit), creates tasks for as long as it may (each waits for approval),
// calls create_task with a number for a title when told to get it wrong (a
// call that does not fit the tool's schema), and otherwise echoes.
import { contentText, type ChatBody, type Step } from '../../bench/lib/fake-model.mjs';

export function providerPolicy(chat: ChatBody): Step {
  const last = chat.messages.at(-1);
  const offered = new Set((chat.tools ?? []).map((t) => t.function.name));
  const userText = contentText(chat.messages.findLast((m) => m.role === 'user')?.content);
  const read = { toolCalls: [{ name: 'read_resource', args: { uri: 'task://guidelines', server: 'demo' } }] };
  // "keep creating tasks": a call that needs the user's approval at every step, for as long as tools are offered.
  if (/keep creating tasks/i.test(userText) && offered.has('demo__create_task')) {
    const made = chat.messages.filter((m) => m.role === 'tool').length;
    return { toolCalls: [{ name: 'demo__create_task', args: { title: `Budget task ${made + 1}` } }] };
  }
  if (/loop/i.test(userText) && offered.has('read_resource')) return read;
  if (/get it wrong/i.test(userText) && offered.has('demo__create_task') && last?.role !== 'tool')
    return { toolCalls: [{ name: 'demo__create_task', args: { title: 42 } }] };
  // "find a tool to list the tasks": search for it, then call it — directly once it is loaded, or through call_tool.
  const wanted = /find a tool to (.+?)[.?]?$/i.exec(userText)?.[1];
  if (wanted && offered.has('search_tools') && last?.role !== 'tool')
    return { toolCalls: [{ name: 'search_tools', args: { query: wanted } }] };
  const searched = chat.messages.at(-2)?.tool_calls?.[0]?.function.name === 'search_tools';
  if (wanted && last?.role === 'tool' && searched) {
    const name = /demo__[a-z_]+/.exec(contentText(last.content))?.[0];
    if (name && offered.has(name)) return { toolCalls: [{ name, args: {} }] };
    if (name && offered.has('call_tool')) return { toolCalls: [{ name: 'call_tool', args: { name, arguments: {} } }] };
  }
  if (last?.role === 'tool') return { text: `Done: ${contentText(last.content).replace(/\s+/g, ' ').slice(0, 60)}` };
  if (/guidelines/i.test(userText) && offered.has('read_resource')) return read;
  return { text: `You said: ${userText.slice(0, 80)}` };
}
