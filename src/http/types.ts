import type { RequestIdVariables } from 'hono/request-id';

/** Who a request acts for: a tenant and one of its end users. */
export interface Principal {
  tenant: string;
  user: string;
  /** True when no tenants are configured (local development): no authentication. */
  open: boolean;
  /** True for a browser token (an end user's browser), false or absent for an API key (the tenant's backend) or the open tenant. */
  browser?: boolean;
  /** The servers a browser token limits this user to (its `servers` claim), if it does. */
  servers?: string[];
}

/** Hono generics shared by every route: Worker bindings and per-request variables. */
export type AppBindings = { Bindings: Env; Variables: RequestIdVariables & { principal: Principal } };
