/** The span names and attributes of issue 30, as the MCP semantic conventions spell them. */
import { describe, expect, it } from 'vitest';
import {
  coverageAttributes,
  httpClientAttributes,
  mcpClientAttributes,
  mcpClientSpanName,
  mcpServerAttributes,
  mcpServerSpanName,
  mcpTargetOf,
  refusedBy,
  sqlClientAttributes,
  sqlClientSpanName,
  sqlOperationName,
  sqlQuerySummary,
} from '../../src/telemetry/conventions.js';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/engine/error-catalogue.js';
import { KIND_LIST } from '../../src/engine/backends/kinds.js';

describe('MCP server spans', () => {
  it('are named after the method and the tool or prompt it targets', () => {
    expect(
      mcpServerSpanName('tools/call', mcpTargetOf('tools/call', { name: 'list_issues' })),
    ).toBe('tools/call list_issues');
    expect(mcpServerSpanName('prompts/get', mcpTargetOf('prompts/get', { name: 'triage' }))).toBe(
      'prompts/get triage',
    );
    // A resource's URI would carry values: the read is named after its method alone.
    expect(
      mcpServerSpanName('resources/read', mcpTargetOf('resources/read', { uri: 'x://1' })),
    ).toBe('resources/read');
    expect(mcpServerSpanName('tools/list', mcpTargetOf('tools/list', undefined))).toBe(
      'tools/list',
    );
    expect(mcpTargetOf('tools/call', { name: 42 })).toBeUndefined();
  });

  it('carry the tool, the operation and the request id of a call', () => {
    expect(
      mcpServerAttributes({
        method: 'tools/call',
        target: 'list_issues',
        protocolVersion: '2026-07-28',
        requestId: 3,
      }),
    ).toEqual({
      'mcp.method.name': 'tools/call',
      'mcp.protocol.version': '2026-07-28',
      'gen_ai.tool.name': 'list_issues',
      'gen_ai.prompt.name': undefined,
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': '3',
      'network.transport': 'tcp',
    });
  });

  it('name a prompt as a prompt, not a tool', () => {
    const a = mcpServerAttributes({ method: 'prompts/get', target: 'triage', requestId: 'a' });
    expect(a['gen_ai.prompt.name']).toBe('triage');
    expect(a['gen_ai.tool.name']).toBeUndefined();
    expect(a['gen_ai.operation.name']).toBeUndefined();
  });
});

describe('client spans', () => {
  it('template the upstream URL from the base URL and the path template, never a value', () => {
    expect(
      httpClientAttributes('GET', 'https://api.example.com/v3', '/repos/{owner}/issues'),
    ).toEqual({
      'http.request.method': 'GET',
      'server.address': 'api.example.com',
      'server.port': 443,
      'url.template': 'https://api.example.com/v3/repos/{owner}/issues',
    });
    expect(httpClientAttributes('GET', 'http://[::1]:8080', '/x')).toMatchObject({
      'server.address': '::1',
      'server.port': 8080,
    });
  });

  it('name a statement’s operation by its first keyword, past comments', () => {
    expect(sqlOperationName('select * from t')).toBe('SELECT');
    expect(sqlOperationName('  -- the newest\n  WITH x AS (SELECT 1) SELECT * FROM x')).toBe(
      'WITH',
    );
    expect(sqlOperationName('/* audit */ insert into t values ($1)')).toBe('INSERT');
    expect(sqlOperationName('(')).toBeUndefined();
    expect(sqlClientAttributes('DELETE FROM t WHERE id = $1', 'drop_ticket')).toEqual({
      'db.system.name': 'postgresql',
      'db.operation.name': 'DELETE',
      'db.query.summary': 'DELETE t',
      'db.collection.name': 't',
      'db.query.text': 'DELETE FROM t WHERE id = $1',
      'mcp_beaver.grant': 'drop_ticket',
    });
  });

  it.each([
    ['SELECT id, title FROM tickets WHERE title = $1', 'SELECT tickets'],
    [
      'select o.id from app.orders o join "Customer Names" c on c.id = o.customer',
      'SELECT app.orders Customer Names',
    ],
    ['SELECT * FROM t WHERE id IN (SELECT t_id FROM tags) AND x = $1', 'SELECT t tags'],
    ["SELECT EXTRACT(YEAR FROM created_at), 'from x' FROM events", 'SELECT events'],
    ['INSERT INTO tickets (title) VALUES ($1) RETURNING id', 'INSERT tickets'],
    ['UPDATE ONLY tickets SET title = $1 WHERE id = $2', 'UPDATE tickets'],
    ['/* newest */ DELETE FROM tickets WHERE id = $1', 'DELETE tickets'],
  ])('summarize %j as the tables it touches, the span named so', (statement, summary) => {
    expect(sqlQuerySummary(statement)).toBe(summary);
    expect(sqlClientSpanName(statement, 'a_grant')).toBe(summary);
  });

  it('name a statement whose tables it cannot read by its operation and grant, never `SELECT` alone', () => {
    const statement = 'WITH x AS (SELECT 1 AS n) SELECT n FROM x';
    expect(sqlQuerySummary(statement)).toBeUndefined();
    expect(sqlClientSpanName(statement, 'count_things')).toBe('WITH count_things');
    expect(sqlClientSpanName('SELECT now()', 'clock')).toBe('SELECT clock');
    expect(sqlClientAttributes(statement, 'count_things')['db.collection.name']).toBeUndefined();
  });

  it('name an upstream MCP call after its tool, and say which mcp-server answers it', () => {
    expect(mcpClientSpanName('search_issues')).toBe('tools/call search_issues');
    expect(
      mcpClientAttributes('search_issues', 'tracker', {
        kind: 'url',
        url: 'https://tracker.example/mcp',
      }),
    ).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'search_issues',
      'gen_ai.operation.name': 'execute_tool',
      'mcp_beaver.mcp_server': 'tracker',
      'server.address': 'tracker.example',
      'server.port': 443,
      'network.transport': 'tcp',
    });
    expect(mcpClientAttributes('t', 'local', { kind: 'command' })).toMatchObject({
      'mcp_beaver.mcp_server': 'local',
      'server.address': undefined,
      'network.transport': 'pipe',
    });
  });
});

describe('our own attributes', () => {
  it('report the envelope’s coverage', () => {
    expect(
      coverageAttributes('list_issues', {
        truncated: true,
        bytes: 900,
        over_budget: false,
        items: [],
        items_omitted: 4,
      }),
    ).toEqual({
      'mcp_beaver.grant': 'list_issues',
      'mcp_beaver.coverage.truncated': true,
      'mcp_beaver.coverage.bytes': 900,
      'mcp_beaver.coverage.items_omitted': 4,
    });
  });

  it('name the guard that refused a call by its catalogue code', () => {
    expect(refusedBy('DENIED_BY_RESTRICT')).toBe('restrict');
    expect(refusedBy('INVALID_ARGUMENTS')).toBe('validate');
    expect(refusedBy('INSUFFICIENT_SCOPE')).toBe('scope');
    expect(refusedBy('RATE_LIMITED')).toBe('rate_limit');
    expect(refusedBy('PATH_VALUE_REJECTED')).toBe('path_gate');
    expect(refusedBy('EXCLUSIVE_ARGUMENTS')).toBe('exclusive');
    expect(refusedBy('MISSING_CLAIM')).toBe('claims');
    expect(refusedBy('APPROVAL_DECLINED')).toBe('consent');
    expect(refusedBy('UNAUTHENTICATED')).toBe('auth');
    expect(refusedBy('OVERLOADED')).toBe('admission');
    expect(refusedBy('UPSTREAM_TIMEOUT')).toBe('upstream');
    expect(refusedBy('SQL_CONSTRAINT')).toBe('upstream');
    expect(refusedBy('IDENTITY_UNAVAILABLE')).toBe('identity');
    expect(refusedBy('AUTHORIZATION_REQUIRED')).toBe('identity');
    expect(refusedBy('UPSTREAM_AUTH')).toBe('upstream');
    // Not a guard: the protocol's own refusals, a bug, or a name from outside.
    expect(refusedBy('METHOD_NOT_FOUND')).toBeUndefined();
    expect(refusedBy('INTERNAL')).toBeUndefined();
    expect(refusedBy('toString')).toBeUndefined();
  });

  it('name a guard for every catalogue code a guard, consent or an upstream answers with', () => {
    const family = /^(UPSTREAM_|SQL_|CONFIRMATION_|APPROVAL_)/;
    const codes = (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter((c) => family.test(c));
    expect(codes.length).toBeGreaterThan(10);
    for (const code of codes) expect(refusedBy(code), code).toBeDefined();
  });

  it('say every code a backend kind answers was refused by the upstream, or by admission', () => {
    const codes = KIND_LIST.flatMap((k) => Object.keys(k.codes));
    expect(codes.length).toBeGreaterThan(10);
    for (const code of codes) expect(['upstream', 'admission'], code).toContain(refusedBy(code));
  });
});
