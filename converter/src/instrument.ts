import { type Node, parse } from 'acorn';
import type { InstrumentInput, InstrumentOutput } from '../../shared/programs';

/**
 * A program's text with a step count at the top of every loop iteration and every function call: the
 * sandbox's CPU limit that does not depend on the runtime. Cloudflare ends a Dynamic Worker past its
 * `limits.cpuMs`; workerd under `wrangler dev` and the Vitest integration does not (checked: `while(true){}`
 * froze the whole local runtime, every Worker in it), and a Worker's clock stands still while its code runs
 * (Date.now() moves only at I/O), so no timer inside or outside the isolate could stop it. Counting is
 * deterministic too: the same program stops at the same step here and in production.
 *
 * The program is parsed (acorn) rather than patched by pattern: a loop body without braces, an arrow with an
 * expression body, a method, a generator — each gets its count, or the program is refused as unparsable. Code
 * that is not in the text cannot run: Workers refuse `eval` and `new Function`.
 *
 * Why here, in the converter Worker, and not in the service: acorn is 33 KiB gzipped (122 KB minified), 6 % of the
 * service's bundle, compiled at every cold start of every conversation for a tool few turns call; here it costs
 * nothing until a program runs, and the untrusted text is parsed outside the conversation's isolate.
 */

/** Parsed as the body of an async function: top-level `await` and `return` allowed. */
const PARSE_OPTIONS = {
  ecmaVersion: 'latest',
  sourceType: 'script',
  allowAwaitOutsideFunction: true,
  allowReturnOutsideFunction: true,
} as const;

const LOOPS = new Set(['WhileStatement', 'DoWhileStatement', 'ForStatement', 'ForInStatement', 'ForOfStatement']);
const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

interface Insertion {
  at: number;
  text: string;
}

/** `code` with `tick();` (the name the caller chose) counted in every loop body and function body; or why not. */
export function instrument({ code, tick }: InstrumentInput): InstrumentOutput {
  if (!/^[A-Za-z_$][\w$]*$/.test(tick)) return { ok: false, reason: 'the count function needs an identifier' };
  let tree: Node;
  try {
    tree = parse(code, PARSE_OPTIONS);
  } catch (error) {
    return { ok: false, reason: `The program does not parse: ${error instanceof Error ? error.message : error}` };
  }
  const insertions: Insertion[] = [];
  const count = `${tick}();`;
  const enter = (body: Node & { type: string; start: number; end: number }) => {
    if (body.type === 'BlockStatement') insertions.push({ at: body.start + 1, text: count });
    else {
      // A body without braces (a loop's single statement, an arrow's expression): braced or sequenced, same meaning.
      const statement = body.type.endsWith('Statement');
      insertions.push({ at: body.start, text: statement ? `{${count}` : `(${tick}(), ` });
      insertions.push({ at: body.end, text: statement ? '}' : ')' });
    }
  };
  walk(tree, (node) => {
    if (LOOPS.has(node.type) || FUNCTIONS.has(node.type)) enter((node as unknown as { body: Node }).body as never);
  });
  // Applied from the end, so that earlier offsets still hold; at one offset, in the order they were found.
  insertions.sort((a, b) => b.at - a.at);
  let out = code;
  for (const { at, text } of insertions) out = out.slice(0, at) + text + out.slice(at);
  return { ok: true, code: out };
}

/** Every node of the tree, parents first (ESTree nodes are plain objects: their children are the node-valued fields). */
function walk(node: Node, visit: (node: Node) => void): void {
  visit(node);
  for (const [key, value] of Object.entries(node)) {
    if (key === 'loc' || key === 'range') continue;
    if (Array.isArray(value)) {
      for (const child of value) if (isNode(child)) walk(child, visit);
    } else if (isNode(value)) walk(value, visit);
  }
}

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
