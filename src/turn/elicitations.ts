import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/client';
import type { ElicitationNotice } from '../../shared/api/stream';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/client/validators/cf-worker';
import type { UIMessageChunk } from 'ai';
import { ApiError } from '../errors';
import { describeAnswerErrors } from './answer-errors';

/** A server's question to the user, as the stream carries it (`data-elicitation`) and the message keeps it (shared/api). */
export type ElicitationRecord = ElicitationNotice;

export interface ElicitationAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown> | undefined;
}

const validators = new CfWorkerJsonSchemaValidator();

/**
 * An answer as it goes back to the server: an `accept`'s content with the schema's defaults for the fields the person
 * left out (SEP-1034: the form showed them filled in), then checked against the server's schema (400 when it does not
 * fit).
 */
export function checkedAnswer(
  requestedSchema: ElicitationRecord['requestedSchema'],
  answer: ElicitationAnswer,
): ElicitationAnswer {
  if (answer.action !== 'accept') return { action: answer.action };
  // The person's fields first, in their order (the answer is shown back as given); then the defaults they left.
  const given = answer.content ?? {};
  const content = { ...given };
  for (const [name, value] of Object.entries(defaultsOf(requestedSchema))) if (!(name in given)) content[name] = value;
  const validate = validators.getValidator<Record<string, unknown>>(requestedSchema as never);
  let check = validate(content);
  // A default the server's own schema refuses is the server's mistake, not the person's: sent without the defaults.
  if (!check.valid && Object.keys(content).length > Object.keys(given).length) {
    const without = validate(given);
    if (without.valid) check = without;
  }
  if (!check.valid)
    throw new ApiError(
      400,
      'invalid_content',
      `The answer does not fit what the server asked for: ${describeAnswerErrors(requestedSchema, check.errorMessage ?? '')}`,
    );
  return { action: 'accept', content: check.data };
}

/** The `default` of each property of a form's schema that has one. */
function defaultsOf(schema: ElicitationRecord['requestedSchema']): Record<string, unknown> {
  const properties = (schema as { properties?: Record<string, { default?: unknown }> }).properties ?? {};
  return Object.fromEntries(
    Object.entries(properties).flatMap(([name, property]) =>
      property && typeof property === 'object' && 'default' in property ? [[name, property.default]] : [],
    ),
  );
}

/**
 * The questions MCP servers ask the user during one turn (elicitation:
 * 2025's `elicitation/create` request, or a 2026 `input_required` result
 * the SDK hands to the same handler). Each becomes a form in the stream —
 * like an approval — and the tool call waits for the answer, which is
 * checked against the server's schema before it goes back. Nobody
 * answering within `timeoutMs`, or the turn being stopped, is a `cancel`.
 */
export class TurnElicitations {
  private readonly pending = new Map<
    string,
    { record: ElicitationRecord; settle: (answer: ElicitationAnswer, status: ElicitationRecord['status']) => void }
  >();

  constructor(
    private readonly write: (chunk: UIMessageChunk) => void,
    private readonly timeoutMs: number,
    private readonly turnSignal: AbortSignal,
  ) {}

  get waiting(): ElicitationRecord[] {
    return [...this.pending.values()].map((p) => p.record);
  }

  /** Asks the user (the form appears in the stream) and resolves with their answer. */
  async ask(server: string, params: ElicitRequestFormParams, signal?: AbortSignal): Promise<ElicitResult> {
    const record: ElicitationRecord = {
      id: crypto.randomUUID(),
      server,
      message: params.message,
      requestedSchema: params.requestedSchema,
      status: 'pending',
    };
    this.show(record);
    const answer = await new Promise<ElicitationAnswer>((resolve) => {
      const timer = setTimeout(() => settle({ action: 'cancel' }, 'expired'), this.timeoutMs);
      const onAbort = () => settle({ action: 'cancel' }, 'cancel');
      const settle = (answer: ElicitationAnswer, status: ElicitationRecord['status']) => {
        if (!this.pending.delete(record.id)) return;
        clearTimeout(timer);
        this.turnSignal.removeEventListener('abort', onAbort);
        signal?.removeEventListener('abort', onAbort);
        this.show({ ...record, status, ...(answer.content ? { content: answer.content } : {}) });
        resolve(answer);
      };
      this.pending.set(record.id, { record, settle });
      if (this.turnSignal.aborted || signal?.aborted) return onAbort();
      this.turnSignal.addEventListener('abort', onAbort, { once: true });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    return answer.action === 'accept'
      ? { action: 'accept', content: answer.content as ElicitResult['content'] }
      : { action: answer.action };
  }

  /** The user's answer: 404 when no such question waits, 400 when the content does not fit the server's schema. */
  answer(id: string, answer: ElicitationAnswer): void {
    const pending = this.pending.get(id);
    if (!pending) throw new ApiError(404, 'elicitation_not_found', `No question ${id} is waiting for an answer`);
    const checked = checkedAnswer(pending.record.requestedSchema, answer);
    pending.settle(checked, checked.action);
  }

  private show(record: ElicitationRecord): void {
    this.write({ type: 'data-elicitation', id: record.id, data: record } as UIMessageChunk);
  }
}
