// The spec of the call sections (3 and 4): one HTTP grant and one sql grant on the
// bench's table (bench/lib/bench-schema.mjs).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JSON_HEADERS, modernRequest } from '../lib/mcp-requests.mjs';

/** Every call of these sections asks for item 42. */
const ARGS = { id: 42 };

export const ITEM_SQL = 'SELECT id, name, price_cents FROM bench_items WHERE id = $1';

/** Writes the spec into `work`; its path. */
export function callSpec(work) {
  const file = join(work, 'bench-call.mcp.kdl');
  writeFileSync(
    file,
    `wrap "bench" version="1.0.0" {
    describe "Grants of the gateway benchmark."
}
base-url "http://127.0.0.1:9"
database env="DATABASE_URL" pool=10
can get item {
    describe "One item by id."
    path "/items/{id}" {
        id "integer" min=1
    }
}
can query item-row {
    describe "One item row by id."
    sql "${ITEM_SQL}"
    params {
        id "integer" required=#true min=1
    }
}
`,
  );
  return file;
}

/** The floor's request: POST <url>/call with the same arguments. */
export const floorCall = (url) => ({
  url: `${url}/call`,
  headers: JSON_HEADERS,
  body: JSON.stringify(ARGS),
});

/**
 * The gateway's two subjects of a call section: `tool` over MCP (2026-07-28) and over
 * REST, each to reach `target` × the floor; `restExpect` matches the REST answer.
 */
export function gatewayCalls(gw, tool, { restExpect, target }) {
  return [
    {
      name: 'mcp-beaver tools/call (modern)',
      pid: gw.child.pid,
      request: modernRequest(gw.url, 'tools/call', { name: tool, arguments: ARGS }, tool),
      expect: /"isError":false/,
      target,
    },
    {
      name: `mcp-beaver POST /api/${tool}`,
      pid: gw.child.pid,
      request: { url: `${gw.url}/api/${tool}`, headers: JSON_HEADERS, body: JSON.stringify(ARGS) },
      expect: restExpect,
      target,
    },
  ];
}
