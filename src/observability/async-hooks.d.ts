/**
 * workerd's `node:async_hooks` (the `nodejs_compat` flag), as far as
 * current-request.ts uses it. The Worker's type-check does not load Node's types
 * (they would retype timers and globals); Node code (tsconfig.node.json)
 * gets the real declaration from `@types/node`.
 */
declare module 'node:async_hooks' {
  export class AsyncLocalStorage<T> {
    run<R>(store: T, callback: () => R): R;
    getStore(): T | undefined;
  }
}
