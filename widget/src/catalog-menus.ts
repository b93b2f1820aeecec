import { ENGLISH, type Locale } from './i18n/locale';
import type { Option } from './listbox';
import type { Catalog, Prompt, Resource, ResourceTemplate, Skill } from './types';

export type PromptChoice = { server: string; prompt: Prompt };
/** What the slash menu offers: a prompt to run (a form for its arguments), or a skill to attach to the next message. */
export type SlashChoice = ({ kind: 'prompt' } & PromptChoice) | { kind: 'skill'; server: string; skill: Skill };
export type ResourceChoice =
  | { kind: 'resource'; server: string; resource: Resource }
  | { kind: 'template'; server: string; template: ResourceTemplate };

const MAX_OPTIONS = 50;
const matches = (query: string, ...fields: Array<string | undefined>) =>
  !query || fields.some((f) => f?.toLowerCase().includes(query.toLowerCase()));
const connected = (catalog: Catalog) => catalog.servers.filter((s) => s.status === 'connected');

/**
 * Servers that are down, as options that say so (and cannot be picked): the
 * person knows what is missing. Only on an empty query, so a menu of them
 * alone never stands between the person and sending "ping @bob".
 */
function unavailable<T>(catalog: Catalog, query: string, locale: Locale): Option<T>[] {
  if (query) return [];
  return catalog.servers
    .filter((s) => s.status !== 'connected')
    .map((s) => ({
      label: locale.t('menus.unavailable', { server: s.id }),
      detail: s.error ?? locale.t('menus.notResponding'),
      value: undefined as T,
      disabled: true,
    }));
}

/**
 * The slash menu: the prompts of every connected server whose name or title
 * matches, then a "Skills" section — the servers' skills (MCP Skills
 * extension) whose name or description matches, each attached to the next
 * message when picked (its SKILL.md, read and verified by the service).
 */
export function slashOptions(catalog: Catalog, query: string, locale: Locale = ENGLISH): Option<SlashChoice>[] {
  const prompts = connected(catalog)
    .flatMap((server) => (server.prompts ?? []).map((prompt) => ({ server: server.id, prompt })))
    .filter(({ prompt }) => matches(query, prompt.name, prompt.title))
    .map(
      (choice): Option<SlashChoice> => ({
        label: `/${choice.prompt.name}`,
        detail: [choice.prompt.title ?? choice.prompt.description, choice.server].filter(Boolean).join(' · '),
        value: { kind: 'prompt', ...choice },
        group: locale.t('menus.prompts'),
        kind: locale.t('menus.prompt'),
      }),
    );
  const skills = connected(catalog)
    .flatMap((server) => (server.skills ?? []).map((skill) => ({ server: server.id, skill })))
    .filter(({ skill }) => matches(query, skill.frontmatter.name, skill.frontmatter.description))
    .map(
      (choice): Option<SlashChoice> => ({
        label: choice.skill.frontmatter.name,
        detail: [choice.skill.frontmatter.description, skillSize(choice.skill, locale), choice.server]
          .filter(Boolean)
          .join(' · '),
        value: { kind: 'skill', ...choice },
        group: locale.t('menus.skills'),
        kind: locale.t('menus.skill'),
      }),
    );
  // Prompts first, as before skills existed; a long prompt list still leaves room for some skills.
  const room = Math.max(MAX_OPTIONS - prompts.length, Math.min(skills.length, 10));
  return [...prompts.slice(0, MAX_OPTIONS - Math.min(room, skills.length)), ...skills.slice(0, room)].concat(
    unavailable(catalog, query, locale),
  );
}

/** A skill's files and bytes ("dynamic": the server generates them). */
function skillSize(skill: Skill, locale: Locale): string {
  if (skill.resources === 'dynamic') return locale.t('menus.dynamic');
  const bytes = skill.resources.reduce((sum, file) => sum + file.size, 0);
  return locale.t('menus.files', { count: skill.resources.length, size: locale.size(bytes) });
}

/** A skill as an attachment: its SKILL.md, titled so the chip says what it is. */
export function skillAttachment(
  server: string,
  skill: Skill,
  locale: Locale = ENGLISH,
): { server: string; uri: string; title: string; mimeType: string; size?: number } {
  const manifest = skill.resources === 'dynamic' ? undefined : skill.resources.find((file) => file.uri === skill.uri);
  return {
    server,
    uri: skill.uri,
    title: locale.t('menus.skillTitle', { name: skill.frontmatter.name }),
    mimeType: 'text/markdown',
    ...(manifest ? { size: manifest.size } : {}),
  };
}

/** The @ menu: resources (title, type, size) and templates (filled in by a form) matching the query. */
export function resourceOptions(catalog: Catalog, query: string, locale: Locale = ENGLISH): Option<ResourceChoice>[] {
  const options: Option<ResourceChoice>[] = [];
  for (const server of connected(catalog)) {
    for (const resource of server.resources ?? []) {
      if (!matches(query, resource.title, resource.name, resource.uri)) continue;
      const meta = [resource.mimeType, resource.size === undefined ? undefined : locale.size(resource.size), server.id]
        .filter(Boolean)
        .join(' · ');
      options.push({
        label: resource.title ?? resource.name,
        detail: `${resource.uri} · ${meta}`,
        value: { kind: 'resource', server: server.id, resource },
      });
    }
    for (const template of server.resourceTemplates ?? []) {
      if (!matches(query, template.title, template.name, template.uriTemplate)) continue;
      options.push({
        label: `${template.title ?? template.name}…`,
        detail: [template.uriTemplate, locale.t('menus.template'), server.id].join(' · '),
        value: { kind: 'template', server: server.id, template },
      });
    }
  }
  return options.slice(0, MAX_OPTIONS).concat(unavailable(catalog, query, locale));
}

const EXPRESSION = /\{([+#./;?&]?)([^}]+)\}/g;

/** The variables of a URI template (RFC 6570 expressions, names only). */
export function templateVariables(uriTemplate: string): string[] {
  return [...uriTemplate.matchAll(EXPRESSION)].flatMap((m) =>
    m[2]!.split(',').map((v) => v.replace(/[*:].*$/, '').trim()),
  );
}

/** A URI from a template: simple and reserved expansion, which is what MCP servers use in practice. */
export function expandTemplate(uriTemplate: string, values: Record<string, string>): string {
  return uriTemplate.replace(EXPRESSION, (_, operator: string, names: string) =>
    names
      .split(',')
      .map((name) => {
        const value = values[name.replace(/[*:].*$/, '').trim()] ?? '';
        return operator === '+' || operator === '#' ? encodeURI(value) : encodeURIComponent(value);
      })
      .join(','),
  );
}
