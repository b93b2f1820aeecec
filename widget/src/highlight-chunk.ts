// The entry of the highlighting chunk (scripts/build-widget.mjs bundles it on its own, next to the widget): it hands
// its `paint` to the widget that loaded it (code-highlight.ts), under a key of the global object that no page
// script uses by accident. Loaded only when an answer first shows a code block in one of its languages.
import { paint } from './highlighter';
import { HIGHLIGHTER_KEY, type Highlighter } from './highlight-languages';

(globalThis as Record<symbol, Highlighter>)[HIGHLIGHTER_KEY] = { paint };
