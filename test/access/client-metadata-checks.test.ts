/**
 * The pure checks behind client ID metadata documents (security.md, "Client ID metadata
 * documents"): which client ids may be fetched, which addresses a fetch may reach, what a
 * document must say, and how long its answer is kept.
 */
import { describe, expect, it } from 'vitest';
import { checkClientIdUrl } from '../../src/access/sign-in/client-id-url.js';
import {
  checkClientMetadata,
  displayName,
  MAX_REDIRECT_URIS,
} from '../../src/access/sign-in/client-metadata-checks.js';
import {
  CACHE_TTL_MS,
  ExpiringLru,
  cacheTtlMs,
} from '../../src/access/sign-in/client-metadata-cache.js';
import { classifyAddress, mayConnect } from '../../src/access/sign-in/public-address.js';

const ID = 'https://client.example.com/oauth/client.json';

function reasonFor(raw: string, allowLoopbackHttp = false): string | undefined {
  const checked = checkClientIdUrl(raw, { allowLoopbackHttp });
  return checked.ok ? undefined : checked.reason;
}

describe('a client_id URL', () => {
  it('is accepted when it is https with a path, a port or a query', () => {
    expect(reasonFor(ID)).toBeUndefined();
    expect(reasonFor('https://client.example.com:8443/c')).toBeUndefined();
    expect(reasonFor('https://client.example.com/c?v=2')).toBeUndefined();
    expect(reasonFor('https://93.184.216.34/client.json')).toBeUndefined();
  });

  it.each([
    ['http://client.example.com/c.json', 'client_id must be an https URL'],
    ['ftp://client.example.com/c.json', 'client_id must be an https URL'],
    ['client.example.com/c.json', 'client_id is not a URL'],
    ['not a url', 'client_id must not contain whitespace, control characters or backslashes'],
    ['https://client.example.com', 'client_id must have a path'],
    ['https://client.example.com/', 'client_id must have a path'],
    ['https://client.example.com?x=1', 'client_id must have a path'],
    ['https://client.example.com/c.json#frag', 'client_id must not contain a fragment'],
    ['https://client.example.com/c.json#', 'client_id must not contain a fragment'],
    [
      'https://user@client.example.com/c.json',
      'client_id must not contain a user name or password',
    ],
    ['https://u:p@client.example.com/c.json', 'client_id must not contain a user name or password'],
    ['https://client.example.com/a/../c.json', 'client_id must not contain . or .. path segments'],
    ['https://client.example.com/./c.json', 'client_id must not contain . or .. path segments'],
    ['https://client.example.com/a/%2e%2E/c', 'client_id must not contain . or .. path segments'],
    ['https://client.example.com/a/.%2e', 'client_id must not contain . or .. path segments'],
    [
      'https://client.example.com\\c.json',
      'client_id must not contain whitespace, control characters or backslashes',
    ],
    [
      'https://client.example.com/c\n.json',
      'client_id must not contain whitespace, control characters or backslashes',
    ],
    ['https://127.0.0.1/c.json', 'client_id names a private, loopback or reserved address'],
    ['https://10.1.2.3/c.json', 'client_id names a private, loopback or reserved address'],
    ['https://169.254.169.254/latest', 'client_id names a private, loopback or reserved address'],
    ['https://[::1]/c.json', 'client_id names a private, loopback or reserved address'],
    ['https://[::ffff:10.0.0.1]/c.json', 'client_id names a private, loopback or reserved address'],
    ['https://[fd00::1]/c.json', 'client_id names a private, loopback or reserved address'],
    ['https://0x7f000001/c.json', 'client_id names a private, loopback or reserved address'],
    [`https://client.example.com/${'a'.repeat(2100)}`, 'client_id is longer than 2048 characters'],
  ])('%s is refused: %s', (raw, reason) => {
    expect(reasonFor(raw)).toBe(reason);
  });

  it('keeps a dot inside a segment, which is not a dot segment', () => {
    expect(reasonFor('https://client.example.com/.well-known/client..json')).toBeUndefined();
  });

  it('never repeats the query or the host in its reason', () => {
    const reason = reasonFor('https://10.0.0.1/c.json?secret=hunter2');
    expect(reason).toBeDefined();
    expect(reason).not.toContain('hunter2');
    expect(reason).not.toContain('10.0.0.1');
  });

  it('over http or on loopback is accepted only when tests allow loopback http', () => {
    expect(reasonFor('http://127.0.0.1:4000/c.json', true)).toBeUndefined();
    expect(reasonFor('https://[::1]:4000/c.json', true)).toBeUndefined();
    expect(reasonFor('http://10.0.0.1/c.json', true)).toBe(
      'client_id names a private, loopback or reserved address',
    );
  });
});

describe('an address a metadata fetch connects to', () => {
  it.each([
    '0.0.0.0',
    '10.0.0.1',
    '100.64.0.1',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '192.0.2.1',
    '198.18.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    'fe80::1',
    'fd12:3456::1',
    'fc00::1',
    'ff02::1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:0a00:0001',
    '64:ff9b::a00:1',
    '2002:a00:1::1',
    '2001:db8::1',
    'not-an-ip',
  ])('%s is private', (ip) => {
    expect(classifyAddress(ip)).toBe('private');
    expect(mayConnect(ip, true)).toBe(false);
  });

  it.each(['127.0.0.1', '127.255.0.9', '::1', '::ffff:127.0.0.1'])(
    '%s is loopback, reachable only when tests allow it',
    (ip) => {
      expect(classifyAddress(ip)).toBe('loopback');
      expect(mayConnect(ip, false)).toBe(false);
      expect(mayConnect(ip, true)).toBe(true);
    },
  );

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])(
    '%s is public',
    (ip) => {
      expect(classifyAddress(ip)).toBe('public');
      expect(mayConnect(ip, false)).toBe(true);
    },
  );
});

function doc(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_id: ID,
    client_name: 'Example Client',
    redirect_uris: ['https://client.example.com/callback', 'http://127.0.0.1:33418/cb'],
    ...over,
  };
}

function docReason(d: unknown): string | undefined {
  const checked = checkClientMetadata(d, ID);
  return checked.ok ? undefined : checked.reason;
}

describe('a client metadata document', () => {
  it('gives a client named by client_name with its exact redirect URIs', () => {
    expect(checkClientMetadata(doc({ token_endpoint_auth_method: 'none' }), ID)).toEqual({
      ok: true,
      client: {
        clientId: ID,
        kind: 'metadata-document',
        name: 'Example Client',
        redirectUris: ['https://client.example.com/callback', 'http://127.0.0.1:33418/cb'],
      },
    });
  });

  it('without client_name, or with one that is only control characters, is named by its host', () => {
    const unnamed = checkClientMetadata(doc({ client_name: undefined }), ID);
    expect(unnamed.ok && unnamed.client.name).toBe('client.example.com');
    const blank = checkClientMetadata(doc({ client_name: '\u0000\u202e\n' }), ID);
    expect(blank.ok && blank.client.name).toBe('client.example.com');
  });

  it('accepts http redirect URIs on localhost and [::1] (RFC 8252 loopback redirection)', () => {
    const d = doc({ redirect_uris: ['http://localhost:9000/cb', 'http://[::1]:9000/cb'] });
    expect(docReason(d)).toBeUndefined();
  });

  it.each([
    [[], 'the client metadata document must be a JSON object'],
    ['text', 'the client metadata document must be a JSON object'],
    [null, 'the client metadata document must be a JSON object'],
    [
      { ...doc(), client_id: 'https://client.example.com/oauth/other.json' },
      'client_id in the client metadata document differs from its URL',
    ],
    [
      { ...doc(), client_id: undefined },
      'client_id in the client metadata document differs from its URL',
    ],
    [
      { ...doc(), client_id: 'https://CLIENT.example.com/oauth/client.json' },
      'client_id in the client metadata document differs from its URL',
    ],
    [
      { ...doc(), client_secret: 's3cret' },
      'the client metadata document must not contain client_secret',
    ],
    [
      { ...doc(), client_secret_expires_at: 0 },
      'the client metadata document must not contain client_secret',
    ],
    [
      { ...doc(), token_endpoint_auth_method: 'private_key_jwt' },
      'token_endpoint_auth_method private_key_jwt is not supported, only none',
    ],
    [
      { ...doc(), token_endpoint_auth_method: 'client_secret_basic' },
      'token_endpoint_auth_method must be none',
    ],
    [{ ...doc(), redirect_uris: undefined }, 'redirect_uris must be a non-empty array'],
    [{ ...doc(), redirect_uris: [] }, 'redirect_uris must be a non-empty array'],
    [
      { ...doc(), redirect_uris: 'https://a.example/cb' },
      'redirect_uris must be a non-empty array',
    ],
    [
      {
        ...doc(),
        redirect_uris: Array.from(
          { length: MAX_REDIRECT_URIS + 1 },
          (_, i) => `https://a.example/${i}`,
        ),
      },
      'redirect_uris must hold at most 20 URIs',
    ],
    [{ ...doc(), redirect_uris: [42] }, 'redirect_uris[0] must be a non-empty string'],
    [{ ...doc(), redirect_uris: ['/callback'] }, 'redirect_uris[0] must be an absolute URL'],
    [
      { ...doc(), redirect_uris: ['https://a.example/cb', 'https://a.example/cb#x'] },
      'redirect_uris[1] must not contain a fragment',
    ],
    [
      { ...doc(), redirect_uris: ['http://client.example.com/cb'] },
      'redirect_uris[0] must be https, or http on a loopback host',
    ],
    [
      { ...doc(), redirect_uris: ['javascript:alert(1)'] },
      'redirect_uris[0] must not use the javascript: scheme',
    ],
    [
      { ...doc(), redirect_uris: ['https://u:p@a.example/cb'] },
      'redirect_uris[0] must not contain a user name or password',
    ],
    [
      { ...doc(), redirect_uris: [`https://a.example/${'x'.repeat(2100)}`] },
      'redirect_uris[0] must be at most 2048 characters',
    ],
    [{ ...doc(), client_name: 7 }, 'client_name must be a string'],
  ])('%j is refused: %s', (d, reason) => {
    expect(docReason(d)).toBe(reason);
  });

  it('never repeats the document in a refusal', () => {
    const reason = docReason(doc({ redirect_uris: ['http://evil.example/steal?token=abc'] }));
    expect(reason).toBe('redirect_uris[0] must be https, or http on a loopback host');
    const secret = docReason(doc({ client_secret: 'hunter2' }));
    expect(secret).not.toContain('hunter2');
  });
});

describe('the name on the consent page', () => {
  it('loses control characters and bidi overrides, and keeps one space between words', () => {
    expect(displayName('Good\u202eClient\u0007\r\n  App')).toBe('Good Client App');
  });

  it('is cut to 80 characters', () => {
    const name = displayName('x'.repeat(500));
    expect([...name!].length).toBe(80);
    expect(name!.endsWith('…')).toBe(true);
  });
});

describe('how long a document is kept', () => {
  it.each([
    [undefined, CACHE_TTL_MS.default],
    ['public', CACHE_TTL_MS.default],
    ['max-age=600', 600_000],
    ['public, max-age="120"', 120_000],
    ['max-age=0', 60_000],
    ['max-age=5', 60_000],
    ['max-age=99999999', 24 * 60 * 60_000],
    ['max-age=abc', CACHE_TTL_MS.default],
    ['no-store', 0],
    ['max-age=600, no-cache', 0],
  ])('Cache-Control %s keeps it %d ms', (header, ms) => {
    expect(cacheTtlMs(header)).toBe(ms);
  });

  it('drops the least recently used entry past the bound, and expired entries', () => {
    let now = 0;
    const lru = new ExpiringLru<string>(2, () => now);
    lru.set('a', 'A', 1000);
    lru.set('b', 'B', 1000);
    expect(lru.get('a')).toBe('A'); // a is now the most recently used
    lru.set('c', 'C', 1000);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe('A');
    expect(lru.get('c')).toBe('C');
    now = 1000;
    expect(lru.get('a')).toBeUndefined();
    expect(lru.size).toBe(1);
  });

  it('keeps nothing for a zero lifetime', () => {
    const lru = new ExpiringLru<string>(2, () => 0);
    lru.set('a', 'A', 0);
    expect(lru.get('a')).toBeUndefined();
  });
});
