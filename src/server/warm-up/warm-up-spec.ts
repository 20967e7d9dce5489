/**
 * The spec the warm-up serves: grants shaped like the common ones (a path parameter, a
 * query with defaults and an enum, a JSON body with a nested object and an array), so
 * that the request path a real spec's calls take is the one compiled and tiered up. It
 * is compiled by the real compiler, its base-url replaced by the stub upstream's.
 */
import { compileSpecText } from '../../compiler/load-spec.js';
import type { CompiledSpec } from '../../compiler/descriptor.js';

const WARM_UP_SPEC = `
wrap "warm-up" version="1.0.0" {
    describe "The gateway's own warm-up, served only to itself before readiness."
}
base-url "http://127.0.0.1:9"
timeout "5s"
can get item {
    describe "One item by id."
    path "/items/{id}" {
        id "integer" min=1 describe="Item id."
    }
}
can list items {
    describe "Items, filtered."
    path "/items"
    query {
        status "string" default="open" {
            enum "open" "closed" "all"
        }
        search "string" max-length=200
        limit "integer" min=1 max=100 default=20
    }
}
can create item {
    describe "A new item."
    path "/items"
    body {
        name "string" required=#true min-length=1 max-length=200
        tags "string[]" max-items=5 max-length=50
        owner "object" {
            name "string" required=#true max-length=100
            email "string" format="email"
        }
    }
}
`;

/** The tools the warm-up calls, each with arguments its grant accepts. */
export const WARM_UP_CALLS: readonly { readonly tool: string; readonly args: object }[] = [
  { tool: 'get_item', args: { id: 42 } },
  { tool: 'list_items', args: { status: 'all', search: 'widget', limit: 5 } },
  {
    tool: 'create_item',
    args: { name: 'widget', tags: ['a', 'b'], owner: { name: 'Ada', email: 'ada@example.com' } },
  },
];

/** The warm-up spec, calling `upstream` (the stub's URL). */
export function warmUpSpec(upstream: string): CompiledSpec {
  const { compiled, diagnostics } = compileSpecText(WARM_UP_SPEC, '<warm-up>', {
    baseUrl: upstream,
  });
  if (!compiled)
    throw new Error(`the warm-up spec does not compile: ${JSON.stringify(diagnostics[0])}`);
  return compiled;
}
