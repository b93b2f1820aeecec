import { runInDurableObject } from 'cloudflare:test';
import type { UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { conversationStub, createConversation } from './helpers/api';
import { turnIn } from './helpers/conversation';
import { connectDemoClient } from './helpers/demo-client';
import { textOfChunks, userMessage } from './helpers/turns';
import { OfflineModel } from '../src/models/offline';

/*
 * The demo's run_code question (README, "A one-minute tour"): the offline stand-in, told by a CALL line, runs a
 * program that counts the demo server's tasks per assignee, and answers with what the program returned.
 */

/** The message the README gives, word for word. */
const PER_ASSIGNEE = `How many tasks per assignee?
CALL run_code {"code": "const { tasks } = await tools.call({ server: 'demo', name: 'list_tasks', arguments: { status: 'all' } }); const counts = {}; for (const t of tasks) counts[t.assignee ?? 'nobody'] = (counts[t.assignee ?? 'nobody'] ?? 0) + 1; return counts;"}`;

describe('the demo: how many tasks per assignee', () => {
  it('the offline model runs the program of the CALL line and answers with its counts', async () => {
    const ana = `ana-${crypto.randomUUID().slice(0, 6)}`;
    const ben = `ben-${crypto.randomUUID().slice(0, 6)}`;
    const { client } = await connectDemoClient('assignees');
    for (const assignee of [ana, ana, ben, ana])
      await client.callTool({ name: 'create_task', arguments: { title: `Task for ${assignee}`, assignee } });
    await client.close();

    const stub = await conversationStub(await createConversation());
    const chunks = await runInDurableObject(stub, async (instance) => {
      // As `npm start -- --var RUN_CODE:on` runs it (the README's words).
      const live = await turnIn(
        instance,
        [userMessage(PER_ASSIGNEE)],
        { model: new OfflineModel(), acceptsImages: false, spec: 'offline' },
        { RUN_CODE: 'on' },
      );
      const all: UIMessageChunk[] = [];
      const reader = live.reader().getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) all.push(r.value);
      return all;
    });
    const called = chunks.flatMap((c) => (c.type === 'tool-input-available' ? [c.toolName] : []));
    expect(called).toEqual(['run_code']);
    const answer = textOfChunks(chunks);
    expect(answer).toMatch(/^The program \(1 call, [\d.]+ [KM]?B read\) returned:\n\n> \{\n/);
    expect(answer).toContain(`>   "${ana}": 3`);
    expect(answer).toContain(`>   "${ben}": 1`);
  });
});
