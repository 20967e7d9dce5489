// The spec of the call sections (3 and 4): one HTTP grant and one sql grant on the
// bench's table (bench/lib/bench-schema.mjs).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
