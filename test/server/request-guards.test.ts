import { describe, expect, it } from 'vitest';
import { prepareRequestGuard } from '../../src/server/request-guards.js';

describe('the Origin and Host guard', () => {
  it('lets a loopback-bound gateway serve its own pages (same origin) and refuses foreign Hosts', () => {
    const guard = prepareRequestGuard({ allowOrigins: [], allowedHosts: [], loopbackOnly: true });
    expect(guard({ host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080' }).ok).toBe(true);
    expect(guard({ host: 'evil.example:8080', origin: 'http://evil.example:8080' }).ok).toBe(false);
  });

  it('does not trust "same origin" when Host is not checked: a rebinding page names itself in both', () => {
    const guard = prepareRequestGuard({ allowOrigins: [], allowedHosts: [], loopbackOnly: false });
    expect(guard({ host: 'evil.example:8080', origin: 'http://evil.example:8080' }).ok).toBe(false);
    expect(guard({ host: 'gateway:8080' }).ok).toBe(true); // no Origin: not a browser
  });

  it('accepts same origin again once the Host is one of the configured names', () => {
    const guard = prepareRequestGuard({
      allowOrigins: [],
      allowedHosts: ['gw.svc'],
      loopbackOnly: false,
    });
    expect(guard({ host: 'gw.svc:8080', origin: 'http://gw.svc:8080' }).ok).toBe(true);
    expect(guard({ host: 'evil.example:8080', origin: 'http://evil.example:8080' }).ok).toBe(false);
  });

  it('always accepts the origins the spec allows', () => {
    const guard = prepareRequestGuard({
      allowOrigins: ['https://console.example.com'],
      allowedHosts: [],
      loopbackOnly: false,
    });
    expect(guard({ host: 'gw:8080', origin: 'https://console.example.com' }).ok).toBe(true);
  });
});
