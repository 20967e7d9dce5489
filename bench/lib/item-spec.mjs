/**
 * The one-grant spec of the sections that measure the gateway itself rather than a grant
 * (warmup, workers): `get_item` on /items/{id}, whose upstream is started by the section.
 * Written to `<work>/<name>.mcp.kdl`; the returned path is what `serve` is given.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function writeItemSpec(work, name) {
  const file = join(work, `${name}.mcp.kdl`);
  writeFileSync(
    file,
    `wrap "${name}" version="1.0.0" {
    describe "The ${name} benchmark."
}
base-url "http://127.0.0.1:9"
can get item {
    describe "One item by id."
    path "/items/{id}" {
        id "integer" min=1
    }
}
`,
  );
  return file;
}
