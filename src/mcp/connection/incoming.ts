import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

/** What reads one incoming message before the SDK does: may change it, then hands it on (`next`). */
export type IncomingHook = (
  message: JSONRPCMessage,
  next: (message: JSONRPCMessage) => void,
  extra: Parameters<NonNullable<Transport['onmessage']>>[1],
) => void;

/**
 * Puts `hook` between `transport` and whatever handler the SDK sets as its `onmessage`, in place (it stays the SDK's
 * transport: the connection tells a 2025 session by `instanceof`). Hooks compose: one added later goes inside the
 * ones before it, so the first added (lenient-results.ts) sees a message first, then task-results.ts, then
 * secret-echo.ts, then the SDK.
 */
export function hookIncoming<T extends Transport>(transport: T, hook: IncomingHook): T {
  const prior = Object.getOwnPropertyDescriptor(transport, 'onmessage');
  let handler: Transport['onmessage'];
  const wrap = (next: Transport['onmessage']): Transport['onmessage'] =>
    next && ((message, extra) => hook(message, (passed) => next(passed, extra), extra));
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => (prior?.get ? prior.get.call(transport) : handler),
    set: (next: Transport['onmessage']) => {
      if (prior?.set) prior.set.call(transport, wrap(next));
      else handler = wrap(next);
    },
  });
  return transport;
}
