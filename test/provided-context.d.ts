// Values test/infra/global-setup.ts provides to tests (`inject(...)`).
// Shared by the Worker-side and the Node-side tsconfig.
export {};

declare module 'vitest' {
  export interface ProvidedContext {
    everythingUrl: string;
    faultyUrl: string;
    faultControlUrl: string;
    minimalUrl: string;
    /** The SDK v2 servers (test/infra/v2-servers.ts): `${v2Url}/<mode>`, control at `${v2Url}/__control/<mode>/…`. */
    v2Url: string;
    /** The SDK v2 servers serving skills (test/infra/skill-servers.ts): `${skillsUrl}/<strict|stateful|many>`, control at `${skillsUrl}/__control/<mode>/…`. */
    skillsUrl: string;
    /** The SDK v2 server with long-running tools as MCP Tasks (test/infra/task-servers.ts): `${tasksUrl}/mcp`, control at `${tasksUrl}/__control/…`. */
    tasksUrl: string;
    /** The OAuth authorization server (test/infra/oauth-servers.ts): the issuer, control at `${oauthAsUrl}/__control/…`. */
    oauthAsUrl: string;
    /** The MCP server it protects: `http://127.0.0.1:<port>/mcp`, its resource identifier too. */
    oauthRsUrl: string;
    /** The fake model provider (bench/lib/fake-model.mjs): `/v1/responses`, `/v1/messages`; `GET /__requests`, `POST /__reset`. */
    fakeModelUrl: string;
    /** MCP servers whose tools change while in use (test/infra/changing-tools.ts): `${changingToolsUrl}/<name>`, control at `${changingToolsUrl}/__control/<name>/…`. */
    changingToolsUrl: string;
    /** The MCP server serving documents (test/infra/document-server.ts): `${documentsUrl}/mcp`, control at `${documentsUrl}/__control/…`. */
    documentsUrl: string;
    /** The folder `@modelcontextprotocol/server-filesystem` serves through test/infra/stdio-bridge.ts (its files: that header). */
    filesystemFolder: string;
    /** The folder `@modelcontextprotocol/server-pdf` serves through test/infra/pdf-server.ts (its files: that header). */
    pdfFolder: string;
  }
}
