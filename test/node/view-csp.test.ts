import { describe, expect, it } from 'vitest';
import { isViewMimeType, toolViewUri, toolVisibleTo } from '../../shared/mcp-apps';
import { viewCsp, viewSecurity, viewSource } from '../../src/http/view-csp';

const OWN = ['https://mcp.example.com', 'http://localhost:8787'];

describe('viewSource: the domains a view may declare', () => {
  it('keeps https origins and https://*. wildcards, normalised', () => {
    expect(viewSource('https://api.acme.dev', OWN)).toBe('https://api.acme.dev');
    expect(viewSource(' HTTPS://CDN.Acme.dev:8443/ ', OWN)).toBe('https://cdn.acme.dev:8443');
    expect(viewSource('https://*.acme.dev', OWN)).toBe('https://*.acme.dev');
  });

  it("drops keywords, schemes, '*', other protocols, paths, and anything that could end the directive", () => {
    for (const bad of [
      "'self'",
      "'unsafe-eval'",
      '*',
      'https://*',
      'data:',
      'blob:',
      'https:',
      'http://api.acme.dev',
      'wss://api.acme.dev',
      'https://api.acme.dev/path',
      'https://a.dev; script-src *',
      "https://a.dev 'unsafe-eval'",
      'https://a.dev\nx',
      'https://*.*.dev',
      42,
      null,
    ]) {
      expect(viewSource(bad, OWN), String(bad)).toBeUndefined();
    }
  });

  it('drops our own origins and wildcards that cover them', () => {
    expect(viewSource('https://mcp.example.com', OWN)).toBeUndefined();
    expect(viewSource('https://*.example.com', OWN)).toBeUndefined();
    expect(viewSource('https://other.example.com', OWN)).toBe('https://other.example.com');
  });
});

describe('viewSecurity: the declared _meta.ui, checked', () => {
  it('keeps what passes, drops the rest (a list left empty goes), and only the permissions the spec names', () => {
    const ui = {
      csp: {
        connectDomains: ['https://api.acme.dev', "'self'", 'https://mcp.example.com', '*'],
        resourceDomains: ['https://cdn.acme.dev', 'https://cdn.acme.dev'],
        frameDomains: ["'self'"],
        somethingElse: ['https://x.dev'],
      },
      permissions: { camera: {}, usb: {}, microphone: true },
      prefersBorder: false,
      domain: 'https://ignored.dev',
    };
    expect(viewSecurity(ui, OWN)).toEqual({
      csp: { connectDomains: ['https://api.acme.dev'], resourceDomains: ['https://cdn.acme.dev'] },
      permissions: { camera: {} },
      prefersBorder: false,
    });
    expect(viewSecurity(undefined, OWN)).toEqual({});
    expect(viewSecurity('garbage', OWN)).toEqual({});
  });
});

describe('viewCsp: the header a view document is served with', () => {
  it('with nothing declared: sandboxed, inline script and style only, no network, frames, base or forms', () => {
    expect(viewCsp({}, ['https://chat.acme.dev', 'https://mcp.example.com'])).toBe(
      "sandbox allow-scripts allow-forms; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src 'none'; " +
        "media-src data:; connect-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors https://chat.acme.dev https://mcp.example.com",
    );
  });

  it('the declared domains where the spec puts them', () => {
    const csp = viewCsp(
      {
        csp: {
          resourceDomains: ['https://cdn.acme.dev'],
          connectDomains: ['https://api.acme.dev'],
          frameDomains: ['https://*.youtube.com'],
          baseUriDomains: ['https://acme.dev'],
        },
      },
      ['https://chat.acme.dev'],
    );
    expect(csp).toContain("script-src 'unsafe-inline' https://cdn.acme.dev;");
    expect(csp).toContain("style-src 'unsafe-inline' https://cdn.acme.dev;");
    expect(csp).toContain('img-src data: https://cdn.acme.dev;');
    expect(csp).toContain('font-src https://cdn.acme.dev;');
    expect(csp).toContain('media-src data: https://cdn.acme.dev;');
    expect(csp).toContain('connect-src https://api.acme.dev;');
    expect(csp).toContain('frame-src https://*.youtube.com;');
    expect(csp).toContain('base-uri https://acme.dev;');
  });

  it('a malformed framing origin is left out; none left is frame-ancestors none', () => {
    expect(viewCsp({}, ["https://a.dev; script-src 'unsafe-eval'", 'http://localhost:8787'])).toMatch(
      /frame-ancestors http:\/\/localhost:8787$/,
    );
    expect(viewCsp({}, [])).toMatch(/frame-ancestors 'none'$/);
  });

  it("a server's hostile declaration ends up nowhere in the header", () => {
    const security = viewSecurity(
      { csp: { connectDomains: ["'self'", 'https://mcp.example.com', '*', 'https://x.dev; connect-src *'] } },
      OWN,
    );
    const csp = viewCsp(security, OWN);
    expect(csp).toContain("connect-src 'none';");
    expect(csp).not.toContain("'self'");
    expect(csp.split('; ').filter((d) => d.startsWith('connect-src'))).toHaveLength(1);
  });
});

describe('shared/mcp-apps: reading a tool’s _meta', () => {
  it('the view URI: nested key first, then the deprecated flat key; ui:// only', () => {
    expect(toolViewUri({ _meta: { ui: { resourceUri: 'ui://a/b' }, 'ui/resourceUri': 'ui://old' } })).toBe('ui://a/b');
    expect(toolViewUri({ _meta: { 'ui/resourceUri': 'ui://old' } })).toBe('ui://old');
    expect(toolViewUri({ _meta: { ui: { resourceUri: 'https://a.dev/view' } } })).toBeUndefined();
    expect(toolViewUri({})).toBeUndefined();
  });

  it('visibility: absent means both; a list means those listed', () => {
    expect(toolVisibleTo({}, 'model')).toBe(true);
    expect(toolVisibleTo({ _meta: { ui: { visibility: ['app'] } } }, 'model')).toBe(false);
    expect(toolVisibleTo({ _meta: { ui: { visibility: ['app'] } } }, 'app')).toBe(true);
    expect(toolVisibleTo({ _meta: { ui: { visibility: ['model'] } } }, 'app')).toBe(false);
  });

  it('the view MIME type, with parameters in any order and case', () => {
    expect(isViewMimeType('text/html;profile=mcp-app')).toBe(true);
    expect(isViewMimeType('TEXT/HTML; charset=utf-8; profile=mcp-app')).toBe(true);
    expect(isViewMimeType('text/html')).toBe(false);
    expect(isViewMimeType('text/plain;profile=mcp-app')).toBe(false);
    expect(isViewMimeType(undefined)).toBe(false);
  });
});
