/**
 * Loads a chunk built beside the widget (scripts/build-widget.mjs: the code highlighting, each language's strings)
 * as a classic `<script>`: on a path that changes with its bytes, with its SRI hash (`integrity`) and the widget
 * script's `nonce`, from the origin the widget's own script came from. A widget pinned with SRI therefore pins its
 * chunks too, and a host CSP that lets the widget in lets them in. Resolves once the chunk ran; rejects when it
 * cannot be had (offline, a CSP or Trusted Types policy that refuses it, an old pinned widget whose chunk is gone).
 */
export interface ChunkRef {
  path: string;
  integrity: string;
}

/** The widget's own script, read while it runs (module evaluation): the chunks are on its origin, under its nonce. */
const widgetScript = typeof document !== 'undefined' ? (document.currentScript as HTMLScriptElement | null) : null;

export function loadChunk(ref: ChunkRef): Promise<void> {
  return new Promise((resolve, reject) => {
    try {
      const script = document.createElement('script');
      script.src = new URL(ref.path, widgetScript?.src || location.href).href;
      if (ref.integrity) script.integrity = ref.integrity;
      script.crossOrigin = 'anonymous';
      if (widgetScript?.nonce) script.nonce = widgetScript.nonce;
      script.addEventListener('load', () => {
        script.remove();
        resolve();
      });
      script.addEventListener('error', () => {
        script.remove();
        reject(new Error(`The chunk ${ref.path} could not be loaded.`));
      });
      document.head.append(script);
    } catch (error) {
      reject(error); // a Trusted Types policy refused the URL
    }
  });
}
