/** How a connect in the sign-in window ended. */
export type PopupOutcome =
  | { kind: 'connected' }
  /** The callback page said no; `reason` when it said why. */
  | { kind: 'refused'; reason?: string }
  /** Closed by the person before the callback page answered. */
  | { kind: 'closed' }
  /** The browser did not open the window at all. */
  | { kind: 'blocked' };

const WINDOW_NAME = 'mcp-ondemand-oauth';
const FEATURES = 'popup,width=520,height=680';
const CLOSED_POLL_MS = 400;

/** What the callback page hands back: completed by the person signed in here (`POST /v1/connections/:server/complete`). */
export interface Handover {
  state: string;
  code: string;
  iss?: string;
}

/**
 * Connects `server` in a popup. Call it from the click handler itself: the
 * window opens blank before anything is awaited, so a popup blocker sees
 * the click; it is sent on once the link arrives (minted now, not when the
 * card appeared: links are single use and live 10 minutes). The callback
 * page hands the authorization code back here (`mcp-ondemand:oauth-code`),
 * and `complete` finishes it as the person signed in to this page — the
 * service stores nothing for a link someone else opened. Only a message
 * from that very window, from the link's origin, about this server counts
 * (any page can post a message to ours). Resolves `closed` when the person
 * closes the window first. Aborting `signal` (a new connect took over the
 * window, or the widget left the page) stops listening: it never settles.
 */
export function connectInPopup(
  server: string,
  /** The blank window's title until the link arrives ("Connecting crm…", in the widget's language). */
  title: string,
  link: () => Promise<string>,
  complete: (handover: Handover) => Promise<void>,
  signal: AbortSignal,
): Promise<PopupOutcome> {
  const popup = window.open('', WINDOW_NAME, FEATURES);
  if (!popup) return Promise.resolve({ kind: 'blocked' });
  try {
    popup.document.title = title; // the blank page, until the link arrives
  } catch {
    // A window of that name on another origin (an earlier connect): it is navigated all the same.
  }
  return new Promise<PopupOutcome>((resolve, reject) => {
    let origin = '';
    const done = (outcome?: PopupOutcome, error?: unknown) => {
      window.removeEventListener('message', onMessage);
      clearInterval(poll);
      signal.removeEventListener('abort', stop);
      if (error !== undefined) reject(error);
      else if (outcome) resolve(outcome);
    };
    const stop = () => done();
    let completing = false;
    const onMessage = (event: MessageEvent) => {
      const data = event.data as {
        type?: unknown;
        server?: unknown;
        ok?: unknown;
        error?: unknown;
        state?: unknown;
        code?: unknown;
        iss?: unknown;
      } | null;
      if (event.source !== popup || !origin || event.origin !== origin || data?.server !== server) return;
      if (
        data.type === 'mcp-ondemand:oauth-code' &&
        typeof data.state === 'string' &&
        typeof data.code === 'string' &&
        !completing
      ) {
        completing = true;
        clearInterval(poll); // the window may be closed now: the outcome is the completion's
        const handover = {
          state: data.state,
          code: data.code,
          ...(typeof data.iss === 'string' ? { iss: data.iss } : {}),
        };
        complete(handover).then(
          () => done({ kind: 'connected' }),
          (error: unknown) => done(undefined, error),
        );
        popup.close();
        return;
      }
      if (data.type !== 'mcp-ondemand:oauth') return;
      if (data.ok === true) return done({ kind: 'connected' });
      done({
        kind: 'refused',
        ...(typeof data.error === 'string' && data.error ? { reason: data.error.slice(0, 300) } : {}),
      });
    };
    const poll = setInterval(() => popup.closed && done({ kind: 'closed' }), CLOSED_POLL_MS);
    window.addEventListener('message', onMessage);
    signal.addEventListener('abort', stop, { once: true });
    link().then(
      (url) => {
        if (signal.aborted) return;
        origin = new URL(url).origin;
        popup.location.href = url;
      },
      (error: unknown) => {
        popup.close();
        done(undefined, error);
      },
    );
  });
}
