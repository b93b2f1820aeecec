import type { ViewSecurity } from '../../../shared/api/views';
import { h } from '../dom';

export const INITIAL_HEIGHT = 200;
export const MAX_HEIGHT = 800;
const MIN_HEIGHT = 40;

/** The permissions a view may declare, as the iframe's `allow` names them; any other is never granted. */
const PERMISSIONS = {
  camera: 'camera',
  microphone: 'microphone',
  geolocation: 'geolocation',
  clipboardWrite: 'clipboard-write',
} as const;

/**
 * The iframe of one view: `src` is the service's view document (a
 * capability URL, served with the CSP the resource declared). Sandboxed
 * with scripts and forms only — no `allow-same-origin` (an opaque origin:
 * no cookies, storage or reach into this page), no popups, no top
 * navigation, no modals, no downloads — and with no permissions but those
 * the view declared, among four.
 */
export function viewFrame(src: string, security: ViewSecurity, title: string): HTMLIFrameElement {
  const allow = Object.entries(PERMISSIONS)
    .filter(([name]) => security.permissions?.[name as keyof typeof PERMISSIONS])
    .map(([, feature]) => feature)
    .join('; ');
  const frame = h('iframe', {
    class: security.prefersBorder === false ? 'view-frame bare' : 'view-frame',
    sandbox: 'allow-scripts allow-forms',
    referrerpolicy: 'no-referrer',
    allow,
    title,
    src,
  });
  frame.style.height = `${INITIAL_HEIGHT}px`;
  return frame;
}

/** A height a view asked for, within what the widget gives a view. */
export const clampHeight = (height: number) => Math.round(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, height)));
