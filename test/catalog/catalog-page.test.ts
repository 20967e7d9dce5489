/**
 * The catalog page template (assets/catalog.html filled by catalog-page.ts), without a
 * server: what the page says for a spec, and templates that cannot be filled refused at boot.
 */
import { describe, expect, it } from 'vitest';
import { CATALOG_FILES } from '../../src/projection/catalog/catalog-assets.js';
import {
  prepareCatalogPage,
  type CatalogOptions,
} from '../../src/projection/catalog/catalog-page.js';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import type { CompiledSpec } from '../../src/compiler/descriptor.js';

const ASSETS = { script: '/catalog.js?v=s', style: '/catalog.css?v=c', icon: '/catalog.svg?v=i' };
const OPEN: CatalogOptions = { mcpPath: '/mcp', access: false, view: 'tools', assets: ASSETS };
const ACCESS: CatalogOptions = { ...OPEN, access: true };

function spec(text: string): CompiledSpec {
  const result = compileSpecText(text, 'page.mcp.kdl');
  if (!result.compiled) throw new Error(JSON.stringify(result.diagnostics));
  return result.compiled;
}

const SCOPED = spec(`
wrap "scoped" version="1.2.3" {
    describe "Two tools, \\"one\\" scoped."
}
base-url "http://127.0.0.1:9"
can get item {
    path "/items/{id}"
    scope "items:read" "items:audit"
}
can list things {
    path "/things"
}
`);
const PLAIN = spec(`
wrap "plain" version="0.1.0"
base-url "http://127.0.0.1:9"
can list things {
    path "/things"
}
`);

describe('the catalog page template', () => {
  const render = prepareCatalogPage(CATALOG_FILES['catalog.html']);

  it('fills every slot and keeps no template marker or comment', () => {
    for (const [s, opts] of [
      [SCOPED, OPEN],
      [SCOPED, ACCESS],
      [PLAIN, OPEN],
    ] as const) {
      const html = render(s, opts);
      expect(html.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
      expect(html).not.toContain('{{');
      expect(html).not.toContain('<!--');
      expect(html).toContain(`<script src="${ASSETS.script}" defer></script>`);
    }
  });

  it('has an Instructions section only for a spec with instructions, its text escaped', () => {
    expect(render(SCOPED, OPEN)).toContain(
      '<p class="prose">Two tools, &quot;one&quot; scoped.</p>',
    );
    expect(render(PLAIN, OPEN)).not.toContain('Instructions');
  });

  it('names the scopes of the scoped tools without access, and none with access', () => {
    expect(render(SCOPED, OPEN)).toContain(
      'data-scopes="{&quot;get_item&quot;:[&quot;items:read&quot;,&quot;items:audit&quot;]}"',
    );
    expect(render(PLAIN, OPEN)).toContain('data-scopes="{}"');
    const withAccess = render(SCOPED, ACCESS);
    expect(withAccess).toContain('data-scopes=""');
    expect(withAccess).not.toContain('items:');
    expect(withAccess).toContain('id="bearer-token"');
    expect(render(SCOPED, OPEN)).not.toContain('id="bearer-token"');
  });

  it('names its view for the script, and offers the approvals tab only with access', () => {
    expect(render(SCOPED, OPEN)).toContain('data-view="tools"');
    expect(render(SCOPED, { ...ACCESS, view: 'approvals' })).toContain('data-view="approvals"');
    expect(render(SCOPED, ACCESS)).toContain('<a href="/approvals" id="view-approvals">');
    expect(render(SCOPED, OPEN)).not.toContain('id="view-approvals"');
    // Without access no call can wait: the view says so instead of asking for a token.
    const open = render(SCOPED, { ...OPEN, view: 'approvals' });
    expect(open).toContain('This gateway has no access block');
    expect(open).not.toContain('Approvals appear once a token is entered');
  });

  it('names the sign-in provider host, escaped, only for a spec with sign-in', () => {
    const signedIn = render(SCOPED, { ...ACCESS, view: 'approvals', signIn: 'login.example.com' });
    expect(signedIn).toContain('data-sign-in="login.example.com"');
    expect(signedIn).toContain('<a href="/signin" id="sign-in">Sign in with login.example.com</a>');
    expect(render(SCOPED, { ...ACCESS, signIn: '<b>"x"' })).toContain(
      'data-sign-in="&lt;b&gt;&quot;x&quot;"',
    );
    // The script leaves the panel hidden when it names no provider.
    expect(render(SCOPED, ACCESS)).toContain('data-sign-in=""');
    expect(render(SCOPED, OPEN)).not.toContain('id="session"');
  });

  it('refuses at boot a template naming an unknown slot or flag, or a block left open', () => {
    expect(() => prepareCatalogPage('<p>{{nmae}}</p>')).toThrow('catalog.html: unknown {{nmae}}');
    expect(() => prepareCatalogPage('{{#acess}}x{{/acess}}')).toThrow('unknown {{#acess}}');
    expect(() => prepareCatalogPage('{{#access}}x')).toThrow(
      'catalog.html: {{#access}} opens or closes no block',
    );
    expect(() =>
      prepareCatalogPage('{{#access}}{{^instructions}}x{{/instructions}}{{/access}}'),
    ).toThrow('opens or closes no block');
  });
});
