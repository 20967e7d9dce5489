/**
 * Issue 30's SQL client span against the machine's real PostgreSQL: one CLIENT span per
 * statement, the child of the call's server span, with the spec's statement as its
 * text and none of the values bound to it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { needsDatabase } from '../helpers/needs-services.js';
import type { TestSchema } from '../helpers/postgres.js';
import { startGatewayOnSchema } from '../helpers/schema-gateway.js';
import {
  newTraceparent,
  recordingTelemetry,
  type RecordingTelemetry,
} from '../helpers/recording-telemetry.js';

const STATEMENT = 'SELECT id, title FROM tickets WHERE title = $1';
const DISTINCT = 'zq-title-4410';

const SPEC = `
wrap "sql-spans" version="1.0.0"
database env="DATABASE_URL" pool=2
can find tickets {
    describe "Tickets of one title."
    sql "${STATEMENT}"
    params {
        title "string" required=#true
    }
}
`;

let schema: TestSchema;
let gw: TestGateway;
let stop: (() => Promise<void>) | undefined;
let telemetry: RecordingTelemetry;

const HAS_DB = needsDatabase();

beforeAll(async () => {
  if (!HAS_DB) return;
  telemetry = recordingTelemetry();
  ({ schema, gw, stop } = await startGatewayOnSchema(
    `CREATE TABLE tickets (id integer PRIMARY KEY, title text NOT NULL);
     INSERT INTO tickets VALUES (1, '${DISTINCT}');`,
    SPEC,
    { telemetry },
  ));
}, 150_000);

afterAll(() => stop?.());

beforeEach(() => {
  if (telemetry) telemetry.spans.length = 0;
});

describe('a sql grant’s call', () => {
  it('is a client span named by the statement’s operation and table, the child of the call’s server span', async () => {
    const sent = newTraceparent();
    const res = await postJson(
      `${gw.url}/api/find_tickets`,
      { title: DISTINCT },
      { traceparent: sent.traceparent },
    );
    expect(res.status).toBe(200);
    const server = telemetry.one('POST /api/{tool}');
    const client = telemetry.one('SELECT tickets');
    expect(client).toMatchObject({
      kind: 'client',
      traceId: sent.traceId,
      parentId: server.spanId,
      error: undefined,
      ended: true,
    });
    expect(client.attributes).toEqual({
      'db.system.name': 'postgresql',
      'db.operation.name': 'SELECT',
      'db.query.summary': 'SELECT tickets',
      'db.collection.name': 'tickets',
      'db.query.text': STATEMENT,
      'mcp_beaver.grant': 'find_tickets',
      'mcp_beaver.credential': 'service',
    });
    // The bound value is in the result, never in a span.
    expect(res.text).toContain(DISTINCT);
    expect(JSON.stringify(telemetry.spans)).not.toContain(DISTINCT);
  });

  it('fails the statement’s span with the catalogue code when the database refuses it', async () => {
    await schema.pool.query('ALTER TABLE tickets RENAME TO tickets_gone');
    try {
      const res = await postJson(`${gw.url}/api/find_tickets`, { title: DISTINCT });
      expect(res.status).toBeGreaterThanOrEqual(400);
      const client = telemetry.one('SELECT tickets');
      const code = (res.json as { error: { code: string } }).error.code;
      expect(client.error).toBe(code);
      expect(telemetry.one('POST /api/{tool}').attributes['mcp_beaver.refused_by']).toBe(
        'upstream',
      );
    } finally {
      await schema.pool.query('ALTER TABLE tickets_gone RENAME TO tickets');
    }
  });
});
