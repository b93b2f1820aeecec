import { RpcTarget } from 'cloudflare:workers';
import { LimitError, type RunLimits } from './limits';

/** What a program may ask for, by method; each answer says how many bytes it gives the program. */
export type ApiMethodName = 'list' | 'read' | 'search' | 'prompt' | 'call';
export type ApiAnswer = { value: unknown; bytes: number; read?: { server: string; uri: string } | undefined };
export type ProgramApi = Record<ApiMethodName, (options: Record<string, unknown>) => Promise<ApiAnswer>>;

/**
 * What a call gives the program: its value, or the message of the error the program's side throws
 * (program-module.ts). An error travels as a value because a rejected RPC call is logged by workerd as an uncaught
 * exception, message and all — a server's text, once per refused call — even when the program catches it.
 */
export type GatewayAnswer = { value: unknown } | { error: string };

/** One call a program made, as the step shows it. */
export interface ApiCallRecord {
  method: ApiMethodName;
  server?: string | undefined;
  uri?: string | undefined;
  name?: string | undefined;
  bytes: number;
  error?: string | undefined;
}

/**
 * The program's only way out of its isolate: an RpcTarget the host hands to `run(api)`, in the conversation's
 * Durable Object. Every call is counted here, outside the program: calls per run, bytes given per run; the first
 * limit hit is kept (`stoppedBy`), so a program that catches the error and goes on is still reported as stopped.
 * After the run ends the gateway closes: a call the program did not await is refused, not run.
 */
export class Gateway extends RpcTarget {
  readonly calls: ApiCallRecord[] = [];
  bytes = 0;
  stoppedBy: LimitError | undefined;
  #closed = false;

  constructor(
    private readonly api: ProgramApi,
    private readonly limits: Pick<RunLimits, 'calls' | 'readBytes'>,
  ) {
    super();
  }

  close(): void {
    this.#closed = true;
  }

  list(options: unknown) {
    return this.#answer('list', options);
  }
  read(options: unknown) {
    return this.#answer('read', options);
  }
  search(options: unknown) {
    return this.#answer('search', options);
  }
  prompt(options: unknown) {
    return this.#answer('prompt', options);
  }
  call(options: unknown) {
    return this.#answer('call', options);
  }

  #answer(method: ApiMethodName, raw: unknown): Promise<GatewayAnswer> {
    return this.#call(method, raw).then(
      (value) => ({ value }),
      (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
    );
  }

  async #call(method: ApiMethodName, raw: unknown): Promise<unknown> {
    if (this.#closed) throw new Error('The program ended before this call: await every call before returning.');
    if (this.stoppedBy) throw new Error(this.stoppedBy.message);
    const options = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const record: ApiCallRecord = {
      method,
      ...pickString(options, 'server'),
      ...pickString(options, 'uri'),
      ...pickString(options, 'name'),
      bytes: 0,
    };
    if (this.calls.length >= this.limits.calls) {
      throw this.#stop(
        new LimitError('calls', `The program made more than ${this.limits.calls} calls, its limit per run.`),
      );
    }
    this.calls.push(record);
    let answer: ApiAnswer;
    try {
      answer = await this.api[method](options);
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error);
      throw new Error(record.error);
    }
    if (this.#closed) throw new Error('The program ended before this call: await every call before returning.');
    if (answer.read) Object.assign(record, answer.read);
    record.bytes = answer.bytes;
    if (this.bytes + answer.bytes > this.limits.readBytes) {
      throw this.#stop(
        new LimitError(
          'read_bytes',
          `The program may be given ${this.limits.readBytes} bytes per run and had ${this.bytes}; this ${method} is ${answer.bytes} more.`,
        ),
      );
    }
    this.bytes += answer.bytes;
    return answer.value;
  }

  #stop(limit: LimitError): Error {
    this.stoppedBy ??= limit;
    return new Error(limit.message);
  }
}

const pickString = (options: Record<string, unknown>, key: string) =>
  typeof options[key] === 'string' ? { [key]: options[key] as string } : {};
