import type { Tool } from '@modelcontextprotocol/client';
import type { ServerWarning } from '../../../shared/api/catalog';
import type { McpServerConfig } from '../../config';
import { errorFields, logEvent } from '../../observability/log';
import type { ServerState } from './catalog';
import type { PinAnswer, PinCheck } from './definition-pins';
import { quotedName, setChangeWarnings } from './server-warnings';
import type { ServerStateStore } from './state-store';
import { digestOf, instructionsDigest, toolDigest } from './tool-digest';

/** The tenant's pins (definition-pins.ts), as a conversation or the status probe reaches them. */
export interface DefinitionPinsClient {
  check(request: PinCheck): Promise<PinAnswer>;
}

type ApprovalConfig = Pick<McpServerConfig, 'autoApprove' | 'trustAnnotations'>;
type Definitions = NonNullable<ServerState['definitions']>;

/**
 * How a call of `tool` is decided: `auto` runs without asking; `ask` — no
 * rule lets it run; `changed` — `autoApprove` or `trustAnnotations` would,
 * but its definition is not the approved one (a pin, or an `autoApprove`
 * digest), so the person is asked again; `unchecked` — a rule would, but no
 * pin is known yet (the tenant's pins could not be reached): asked too.
 * The one rule for the model's calls and a view's (tools/mcp-tools.ts).
 */
export type ApprovalRule = 'auto' | 'ask' | 'changed' | 'unchecked';

/**
 * What the configuration approves of `tool`: `byPin` — its name in `autoApprove`, or a trusted read-only annotation,
 * approves the pinned definition; `digests` — `{name, sha256}` entries approve those definitions.
 */
function approvalsOf(config: ApprovalConfig, tool: Tool): { byPin: boolean; digests: string[] } {
  const entries = config.autoApprove.filter((e) => (typeof e === 'string' ? e : e.name) === tool.name);
  return {
    byPin:
      entries.some((e) => typeof e === 'string') ||
      (config.trustAnnotations === true && tool.annotations?.readOnlyHint === true),
    digests: entries.flatMap((e) => (typeof e === 'string' ? [] : [e.sha256])),
  };
}

export function approvalRule(
  config: ApprovalConfig | undefined,
  tool: Tool,
  definitions: Definitions | undefined,
): ApprovalRule {
  if (!config) return 'ask';
  const { byPin, digests } = approvalsOf(config, tool);
  if (!byPin && !digests.length) return 'ask';
  const digest = digestOf(tool);
  if (digest === undefined) return 'unchecked';
  if (digests.includes(digest)) return 'auto';
  const pinned = definitions?.tools[tool.name];
  if (byPin && pinned === digest) return 'auto';
  return byPin && pinned === undefined ? 'unchecked' : 'changed';
}

/**
 * What a changed tool's warning names as approved: the pin where a name or a
 * trusted annotation approves the tool, else (only digests in `autoApprove`)
 * the first of those digests.
 */
function approvedOf(config: ApprovalConfig, tool: Tool, definitions: Definitions | undefined) {
  const { byPin, digests } = approvalsOf(config, tool);
  if (!byPin && digests[0] !== undefined) return { digest: digests[0], byConfig: true };
  return { digest: definitions?.tools[tool.name], byConfig: false };
}

/** The warnings of a server's definitions that differ from the approved ones (its other warnings stay). */
export function changeWarnings(
  config: ApprovalConfig,
  state: Pick<ServerState, 'tools' | 'definitions' | 'protocolVersion'>,
  /** The digest of the server's instructions now (`instructionsDigest`). */
  instructions: string | undefined,
): ServerWarning[] {
  const warnings: ServerWarning[] = [];
  for (const tool of state.tools) {
    const rule = approvalRule(config, tool, state.definitions);
    if (rule !== 'changed' && rule !== 'unchecked') continue;
    const { digest: approved, byConfig } = approvedOf(config, tool, state.definitions);
    const current = digestOf(tool);
    if (current === undefined) continue; // not digested: asked about, and warned of once it is
    const name = quotedName(tool.name);
    warnings.push({
      method: 'tools/list',
      message:
        rule === 'unchecked'
          ? `tool ${name}: its definition could not be checked against the approved one; calls ask until it is`
          : byConfig
            ? `tool ${name} is not the definition autoApprove names (by sha256); calls ask`
            : `tool ${name} changed its definition since it was approved; calls ask again`,
      change: { kind: 'tool', name: tool.name, ...(approved ? { approved } : {}), current },
    });
  }
  const current = instructions;
  const approved = state.definitions?.instructions;
  if (current && approved && current !== approved)
    warnings.push({
      // 2026 servers say their instructions in server/discover, 2025 ones in initialize.
      method: (state.protocolVersion ?? '') >= '2026' ? 'server/discover' : 'initialize',
      message: "the server's instructions changed since they were approved; the model is given the new ones",
      change: { kind: 'instructions', approved, current },
    });
  return warnings;
}

const AUTO_APPROVAL_AFTER: Record<ApprovalRule, string> = {
  changed: 'withdrawn',
  unchecked: 'withdrawn',
  auto: 'applies',
  ask: 'none',
};

/**
 * Asks the tenant's pins about every listed tool and the instructions (the
 * first listing pins them), logs each change the tenant sees for the first
 * time, and answers the approved definitions of what is listed.
 */
export async function askPins(
  pins: DefinitionPinsClient,
  at: { server: string; url: string; config: ApprovalConfig },
  tools: readonly Tool[],
  instructions: string | undefined,
): Promise<Definitions> {
  const listed = await Promise.all(tools.map(async (tool) => ({ name: tool.name, digest: await toolDigest(tool) })));
  const current = await instructionsDigest(instructions);
  const answer = await pins.check({ server: at.server, url: at.url, tools: listed, instructions: current });
  const definitions: Definitions = { tools: {} };
  for (const [i, { name, digest }] of listed.entries()) {
    const pin = answer.tools[name];
    if (!pin) continue;
    definitions.tools[name] = pin.pinned;
    if (pin.news)
      logEvent(
        'mcp.tool_changed',
        {
          server: at.server,
          tool: quotedName(name),
          approvedSha256: pin.pinned,
          currentSha256: digest,
          // What the change does to the tool's calls: `withdrawn` (they ran without asking; now they ask), `applies`
          // (an autoApprove digest names the new definition), `none` (they ask anyway).
          autoApproval: AUTO_APPROVAL_AFTER[approvalRule(at.config, tools[i]!, { tools: { [name]: pin.pinned } })],
        },
        'warn',
      );
  }
  if (answer.instructions) {
    definitions.instructions = answer.instructions.pinned;
    if (answer.instructions.news)
      logEvent(
        'mcp.instructions_changed',
        { server: at.server, approvedSha256: answer.instructions.pinned, currentSha256: current },
        'warn',
      );
  }
  return definitions;
}

export interface DefinitionCheckOptions {
  state: ServerState;
  config: McpServerConfig;
  store: ServerStateStore;
  /** The tenant's pins; absent (a conversation without a tenant's store): this conversation's first listing pins. */
  pins?: DefinitionPinsClient | undefined;
}

/**
 * One conversation's view of a server's approved definitions: the pins of
 * what it lists (kept in its state, so a restart asks nothing), asked of the
 * tenant only when something is new — a tool or instructions without a pin
 * here, a digest not reported yet — or while a change stands that the
 * operator may re-confirm (then once per `settle`, i.e. per turn). The
 * approval rule itself never waits for this: it compares the definition in
 * hand with the pins held (`approvalRule`), so a definition not checked yet
 * is asked about.
 */
export class DefinitionCheck {
  /** Digests of changed tools already reported to the pins (their `news` is spent). */
  private readonly reported = new Map<string, string>();
  private running: Promise<void> | undefined;

  constructor(private readonly options: DefinitionCheckOptions) {}

  /** Brings the pins and the change warnings up to date with what is listed now; concurrent callers share one run. */
  settle(): Promise<void> {
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(): Promise<void> {
    const { state, config, store, pins } = this.options;
    for (let round = 0; round < 3; round++) {
      const tools = state.tools;
      const instructions = state.instructions;
      // Digested once per tool object (and the instructions once per text): after that, the rule answers synchronously.
      await Promise.all(tools.map((tool) => toolDigest(tool)));
      const instructionsNow = await this.instructionsDigest(instructions);
      const before = JSON.stringify(state.definitions);
      if (this.due(tools, instructionsNow)) {
        if (pins) {
          try {
            state.definitions = await askPins(
              pins,
              { server: config.id, url: config.url, config },
              tools,
              instructions,
            );
            for (const tool of tools) this.reported.set(tool.name, digestOf(tool)!);
          } catch (error) {
            // Fail closed: what has no pin here is asked about (`unchecked`) until a later turn reaches the pins.
            logEvent('catalog.refresh', { server: config.id, kind: 'definitions', ...errorFields(error) }, 'warn');
          }
        } else state.definitions = this.pinnedHere(tools, instructionsNow);
      }
      const warned = setChangeWarnings(state, changeWarnings(config, state, instructionsNow));
      if (warned || JSON.stringify(state.definitions) !== before) store.saveHeader(state);
      // The list (or the instructions) changed while the pins were asked: once more for the new one.
      if (state.tools === tools && state.instructions === instructions) return;
    }
  }

  private lastInstructions: { text: string; digest: Promise<string | undefined> } | undefined;

  private instructionsDigest(text: string | undefined): Promise<string | undefined> {
    if (text === undefined) return Promise.resolve(undefined);
    if (this.lastInstructions?.text !== text) this.lastInstructions = { text, digest: instructionsDigest(text) };
    return this.lastInstructions.digest;
  }

  /** Whether the tenant's pins must be asked: something listed has no pin here, changed unreported, or a change stands. */
  private due(tools: readonly Tool[], instructions: string | undefined): boolean {
    const held = this.options.state.definitions;
    if (instructions !== undefined && instructions !== held?.instructions) return true;
    return tools.some((tool) => {
      const pinned = held?.tools[tool.name];
      if (pinned === undefined) return true;
      const digest = digestOf(tool);
      if (pinned === digest) return false;
      // A change the operator may re-confirm is asked about at every settle (so a re-confirmation counts at the next turn).
      const rule = approvalRule(this.options.config, tool, held);
      return rule === 'changed' || this.reported.get(tool.name) !== digest;
    });
  }

  private pinnedHere(tools: readonly Tool[], instructions: string | undefined): Definitions {
    const held = this.options.state.definitions;
    const definitions: Definitions = { tools: {} };
    for (const tool of tools) definitions.tools[tool.name] = held?.tools[tool.name] ?? digestOf(tool)!;
    const digest = held?.instructions ?? instructions;
    if (digest) definitions.instructions = digest;
    return definitions;
  }
}
