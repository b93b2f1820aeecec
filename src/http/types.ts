import type { RequestIdVariables } from 'hono/request-id';

/** Hono generics shared by every route: Worker bindings and per-request variables. */
export type AppBindings = { Bindings: Env; Variables: RequestIdVariables };
