import { describe, expect, it } from 'vitest';
import {
  isRegisteredRedirect,
  redirectTarget,
  redirectUriProblem,
} from '../../src/access/sign-in/redirect-uri.js';

describe('a redirect URI a client may register', () => {
  it.each([
    'https://claude.ai/api/mcp/auth_callback',
    'http://127.0.0.1:33418/',
    'http://[::1]:8080/cb',
    'http://localhost:3000/oauth/callback',
    'cursor://anysphere.cursor-retrieval/oauth/callback',
    'com.example.desk:/oauth2redirect',
  ])('takes %s', (uri) => {
    expect(redirectUriProblem(uri)).toBeUndefined();
  });

  it.each([
    ['http://app.example/cb', 'must be https, or http on a loopback host'],
    ['javascript:alert(1)', 'must not use the javascript: scheme'],
    ['data:text/html,x', 'must not use the data: scheme'],
    ['file:///etc/passwd', 'must not use the file: scheme'],
    ['https://app.example/cb#x', 'must not contain a fragment'],
    ['https://user:pw@app.example/cb', 'must not contain a user name or password'],
    ['/relative', 'must be an absolute URL'],
  ])('refuses %s: %s', (uri, problem) => {
    expect(redirectUriProblem(uri)).toBe(problem);
  });
});

describe('a requested redirect URI', () => {
  const registered = ['http://127.0.0.1/callback', 'https://app.example/cb'];

  it('matches a registered loopback one on any port, as RFC 8252 has desktop clients do', () => {
    expect(isRegisteredRedirect(registered, 'http://127.0.0.1:51234/callback')).toBe(true);
  });

  it('matches no loopback one with another host, path or query', () => {
    expect(isRegisteredRedirect(registered, 'http://localhost:51234/callback')).toBe(false);
    expect(isRegisteredRedirect(registered, 'http://127.0.0.1:51234/other')).toBe(false);
    expect(isRegisteredRedirect(registered, 'http://127.0.0.1:51234/callback?x=1')).toBe(false);
  });

  it('matches an https one only exactly', () => {
    expect(isRegisteredRedirect(registered, 'https://app.example/cb')).toBe(true);
    expect(isRegisteredRedirect(registered, 'https://app.example:8443/cb')).toBe(false);
    expect(isRegisteredRedirect(registered, 'https://app.example/cb/')).toBe(false);
  });
});

describe('where the consent page says the code goes', () => {
  it('names the host of a web redirect, and the scheme and host of an app', () => {
    expect(redirectTarget('https://claude.ai/api/mcp/auth_callback')).toBe('claude.ai');
    expect(redirectTarget('cursor://anysphere.cursor-retrieval/oauth/callback')).toBe(
      'cursor://anysphere.cursor-retrieval',
    );
    expect(redirectTarget('com.example.desk:/oauth2redirect')).toBe('com.example.desk:');
  });
});
