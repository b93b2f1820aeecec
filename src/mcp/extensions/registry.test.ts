import type { Transport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { ServerState } from '../../../shared/api/catalog';
import { CATALOG_KINDS, emptyServerState } from '../catalog/catalog';
import { extensions } from './index';
import { ExtensionRegistry, type McpExtension } from './registry';

const state = (overrides: Partial<ServerState>): ServerState => ({
  ...emptyServerState('demo'),
  status: 'connected',
  ...overrides,
});

describe('the extension registry', () => {
  it('declares each extension we consume, and Skills not to a server whose skills are off', () => {
    expect(Object.keys(extensions.forConnection({ skills: 'all' }).capabilities)).toEqual([
      'io.modelcontextprotocol/ui',
      'io.modelcontextprotocol/skills',
      'io.modelcontextprotocol/tasks',
    ]);
    expect(extensions.forConnection({ skills: 'off' }).capabilities).not.toHaveProperty(
      'io.modelcontextprotocol/skills',
    );
    expect(extensions.forConnection({ skills: 'all' }).capabilities['io.modelcontextprotocol/ui']).toEqual({
      mimeTypes: ['text/html;profile=mcp-app'],
    });
  });

  it('answers for the catalog kinds extensions add, and leaves the core ones to the catalog', () => {
    const skills = { resources: {}, extensions: { 'io.modelcontextprotocol/skills': {} } };
    expect(extensions.supports(skills, 'skills')).toBe(true);
    expect(extensions.supports({ resources: {} }, 'skills')).toBe(false);
    expect(extensions.supports(skills, 'tools')).toBeUndefined();
    expect(extensions.changedBy('notifications/resources/list_changed')).toEqual(['skills']);
    expect(extensions.changedBy('notifications/tools/list_changed')).toEqual([]);
    // The catalog is listed by the core kinds and those the registered extensions add: none named by hand.
    expect(extensions.catalogKinds()).toEqual(['skills']);
    expect(CATALOG_KINDS).toEqual(['tools', 'resources', 'resourceTemplates', 'prompts', 'skills']);
  });

  it('keeps views and skill files from the model, and nothing else', () => {
    const shown = extensions.forModel([
      state({
        resources: [
          { uri: 'ui://board', name: 'board', mimeType: 'text/html;profile=mcp-app' },
          { uri: 'skill://report/SKILL.md', name: 'report' },
          { uri: 'demo://notes', name: 'notes' },
        ],
        skills: [
          {
            uri: 'skill://report/SKILL.md',
            frontmatter: { name: 'report', description: 'd' },
            resources: 'dynamic',
          } as unknown as NonNullable<ServerState['skills']>[number],
        ],
      }),
    ]);
    expect(shown[0]!.resources.map((r) => r.uri)).toEqual(['demo://notes']);
  });

  it('a new extension is one object: its capability, wrapper, catalog kind and model view apply with no other change', () => {
    const seen: string[] = [];
    const extra: McpExtension = {
      id: 'example.com/notes',
      clientCapability: () => ({ version: 1 }),
      wrapTransport: <T extends Transport>(transport: T) => (seen.push('wrapped'), transport),
      catalogKinds: { prompts: (capabilities) => capabilities.extensions?.['example.com/notes'] !== undefined },
      forModel: (s) => ({ ...s, prompts: [] }),
    };
    const registry = new ExtensionRegistry([...extensions.extensions, extra]);
    const connection = registry.forConnection({ skills: 'all' });
    expect(connection.capabilities['example.com/notes']).toEqual({ version: 1 });
    connection.wrapTransport({ send: async () => {} } as unknown as Transport);
    expect(seen).toEqual(['wrapped']);
    expect(registry.supports({ extensions: { 'example.com/notes': {} } }, 'prompts')).toBe(true);
    expect(registry.catalogKinds()).toEqual(['skills', 'prompts']);
    expect(registry.forModel([state({ prompts: [{ name: 'p' }] })])[0]!.prompts).toEqual([]);
  });
});
