import type { Prompt, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { humanSize } from './render';

/**
 * One catalog entry per line, as the model sees it in the system prompt and
 * in listing tools: tens of tokens, never content.
 */
export function resourceLine(r: Resource): string {
  const meta = [r.mimeType, r.size === undefined ? undefined : humanSize(r.size)].filter(Boolean).join(', ');
  const name = r.title ?? r.name;
  return `- ${name} — ${r.uri}${meta ? ` (${meta})` : ''}${r.description ? `: ${oneLine(r.description)}` : ''}`;
}

export function templateLine(t: ResourceTemplate): string {
  return `- ${t.uriTemplate}${t.mimeType ? ` (${t.mimeType})` : ''}${t.title || t.description ? `: ${oneLine(t.title ?? '')}${t.title && t.description ? ' — ' : ''}${oneLine(t.description ?? '')}` : ''}`;
}

export function promptLine(p: Prompt): string {
  const args = (p.arguments ?? []).map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ');
  return `- ${p.name}(${args})${p.description ? `: ${oneLine(p.description)}` : ''}`;
}


const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 240);
