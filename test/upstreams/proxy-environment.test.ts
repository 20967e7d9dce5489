/**
 * Which proxy the environment names for an upstream (outbound/upstream-dispatcher.ts),
 * decided once at start for the upstream's one origin, and the TLS files read then.
 */
import { describe, expect, it } from 'vitest';
import { proxyFromEnvironment, readTls } from '../../src/outbound/upstream-dispatcher.js';
import { StartupError } from '../../src/process/startup-error.js';

const P = 'http://proxy.internal:3128';
const at = (u: string): URL => new URL(u);

describe('the proxy the environment names for an upstream', () => {
  it('is none when no proxy variable is set', () => {
    expect(proxyFromEnvironment(at('https://api.example.com'), {})).toBeUndefined();
  });

  it('is HTTPS_PROXY for https, falling back to HTTP_PROXY, and HTTP_PROXY only for http', () => {
    expect(proxyFromEnvironment(at('https://a.example.com'), { HTTPS_PROXY: P })).toBe(P);
    expect(proxyFromEnvironment(at('https://a.example.com'), { HTTP_PROXY: P })).toBe(P);
    expect(proxyFromEnvironment(at('http://a.example.com'), { HTTPS_PROXY: P })).toBeUndefined();
    expect(proxyFromEnvironment(at('http://a.example.com'), { http_proxy: P })).toBe(P);
  });

  it('prefers the lower-case spelling, as curl does', () => {
    const env = { https_proxy: P, HTTPS_PROXY: 'http://other:1' };
    expect(proxyFromEnvironment(at('https://a.example.com'), env)).toBe(P);
  });

  it('leaves out a host NO_PROXY lists, its subdomains, and every host for *', () => {
    const env = (no: string) => ({ HTTPS_PROXY: P, NO_PROXY: no });
    const u = at('https://api.corp.example.com');
    expect(proxyFromEnvironment(u, env('api.corp.example.com'))).toBeUndefined();
    expect(proxyFromEnvironment(u, env('corp.example.com'))).toBeUndefined();
    expect(proxyFromEnvironment(u, env('.example.com'))).toBeUndefined();
    expect(proxyFromEnvironment(u, env('*.example.com'))).toBeUndefined();
    expect(proxyFromEnvironment(u, env('*'))).toBeUndefined();
    expect(proxyFromEnvironment(u, env('xample.com,other.com'))).toBe(P);
  });

  it('matches a NO_PROXY entry with a port only on that port, and IPv6 in brackets', () => {
    const env = (no: string) => ({ HTTPS_PROXY: P, no_proxy: no });
    expect(
      proxyFromEnvironment(at('https://127.0.0.1:8443'), env('127.0.0.1:8443')),
    ).toBeUndefined();
    expect(proxyFromEnvironment(at('https://127.0.0.1:9443'), env('127.0.0.1:8443'))).toBe(P);
    expect(
      proxyFromEnvironment(at('https://a.example.com'), env('a.example.com:443')),
    ).toBeUndefined();
    expect(proxyFromEnvironment(at('https://[::1]:8443'), env('[::1]'))).toBeUndefined();
    expect(proxyFromEnvironment(at('https://[::1]:8443'), env('::1'))).toBeUndefined();
  });
});

describe('the TLS files of an upstream', () => {
  it('stops start-up naming a file it cannot read', () => {
    const read = () => readTls({ caFile: '/nonexistent/mcpb/ca.pem' }, 'upstream "crm"');
    expect(read).toThrow(StartupError);
    expect(read).toThrow(
      /the ca-file of upstream "crm" \(\/nonexistent\/mcpb\/ca\.pem\) cannot be read: ENOENT/,
    );
  });

  it('trusts a ca-file besides the system roots, not instead of them', () => {
    const tls = readTls({ caFile: new URL(import.meta.url).pathname }, 'upstream "crm"');
    expect(tls.ca!.length).toBeGreaterThan(1);
  });
});
