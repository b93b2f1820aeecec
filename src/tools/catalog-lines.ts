import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate } from '@modelcontextprotocol/client';
import { terms } from './relevance';
import { humanSize } from './human-size';

/**
 * One catalog entry per line, as the model sees it in the system prompt and
 * in listing tools: tens of tokens, never content.
 */
export function resourceLine(r: Resource): string {
  const meta = [r.mimeType, r.size === undefined ? undefined : humanSize(r.size)].filter(Boolean).join(', ');
  const name = r.title ?? r.name;
  const description = r.description && addsInformation(`${name} ${r.uri}`, r.description) ? `: ${oneLine(r.description)}` : '';
  return `- ${name} — ${r.uri}${meta ? ` (${meta})` : ''}${description}`;
}

/** A description that only repeats the title's words costs tokens and tells the model nothing. */
function addsInformation(known: string, description: string): boolean {
  const seen = new Set(terms(known));
  return terms(description).some((word) => !seen.has(word));
}

export function templateLine(t: ResourceTemplate): string {
  return `- ${t.uriTemplate}${t.mimeType ? ` (${t.mimeType})` : ''}${t.title || t.description ? `: ${oneLine(t.title ?? '')}${t.title && t.description ? ' — ' : ''}${oneLine(t.description ?? '')}` : ''}`;
}

export function promptLine(p: Prompt): string {
  const args = (p.arguments ?? []).map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ');
  return `- ${p.name}(${args})${p.description ? `: ${oneLine(p.description)}` : ''}`;
}


/** Descriptions are metadata, not content: long ones are cut, visibly, to keep each entry to tens of tokens. */
const oneLine = (text: string) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 160 ? `${flat.slice(0, 159)}…` : flat;
};
