import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SPEC_ERROR_CODES, type SpecErrorCode } from '../../src/compiler/diagnostics.js';
import { compileSpecText } from '../../src/compiler/load-spec.js';

// Every refusal of the spec compiler, pinned to its code and to the exact token it
// blames (spec-language.md, "Load errors"). Each row lists *all* the errors its spec
// produces, so a spec that starts reporting a second, unrelated error fails too.

const FILE = 'bad.mcp.kdl';

/**
 * A spec written inline: the common indentation and the first line break are removed,
 * so line 1 is the first written line. Raw, so `\1` in a pattern stays a backslash.
 */
function kdl(strings: TemplateStringsArray): string {
  const lines = strings.raw
    .join('')
    .replace(/^\n/, '')
    .replace(/\n\s*$/, '\n')
    .split('\n');
  const indent = Math.min(
    ...lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length),
  );
  return lines.map((l) => l.slice(indent)).join('\n');
}

/**
 * The nodes most rows share, written once: `spec` adds the `wrap` line, `http` also a
 * base-url and `sql` a database, before the row's own nodes. The added lines are counted,
 * so a row's line numbers are those of the whole file: its first line is line 2 under
 * `spec` and line 3 under `http` and `sql`.
 */
function withPreamble(preamble: string) {
  return (strings: TemplateStringsArray): string => preamble + kdl(strings);
}
const WRAP = 'wrap "t" version="1"\n';
const spec = withPreamble(WRAP);
const http = withPreamble(`${WRAP}base-url "https://api.example.com"\n`);
const sql = withPreamble(`${WRAP}database env="DATABASE_URL"\n`);

interface Expected {
  readonly code: SpecErrorCode;
  readonly line: number;
  readonly column: number;
  /** A part of the message: names the grant, field or node at fault. */
  readonly says: string;
}

interface BadSpec {
  readonly name: string;
  readonly text: string;
  readonly errors: readonly Expected[];
}

function errorsOf(text: string) {
  const result = compileSpecText(text, FILE);
  return {
    compiled: result.compiled,
    errors: result.diagnostics
      .filter((d) => d.severity === 'error')
      .map(({ code, line, column, message, file }) => ({ code, line, column, message, file })),
  };
}

function expected(list: readonly Expected[]) {
  return list.map(({ code, line, column, says }) => ({
    code,
    line,
    column,
    message: expect.stringContaining(says),
    file: FILE,
  }));
}

/**
 * Literal path segments an upstream may read as another path (security.md, "Path
 * values"): under a base-url prefix (`/tenants/acme`), a normalising upstream would
 * take `%2e%2e` or `..;` as `..` and leave the prefix, or `%2F` as a segment boundary.
 * [the path or base-url path, the segment blamed, what the message says of it]
 */
const READ_AS_ANOTHER_PATH: readonly (readonly [string, string, string])[] = [
  ['/tenants/%2e%2e/admin', '%2e%2e', 'which reads as ".." once percent-decoded'],
  ['/a/%2E%2e/b', '%2E%2e', 'which reads as ".." once percent-decoded'],
  ['/a/.%2e/b', '.%2e', 'which reads as ".." once percent-decoded'],
  ['/a/%2E./b', '%2E.', 'which reads as ".." once percent-decoded'],
  ['/a/%2e/b', '%2e', 'which reads as "." once percent-decoded'],
  ['/a/..;/b', '..;', 'which reads as ".." without its ";" parameters'],
  ['/a/..;jsessionid=1/b', '..;jsessionid=1', 'which reads as ".." without its ";" parameters'],
  ['/a/.;x/b', '.;x', 'which reads as "." without its ";" parameters'],
  ['/a/%2e%2e%3b/b', '%2e%2e%3b', 'which reads as ".." once percent-decoded'],
  ['/files/a%2Fb', 'a%2Fb', 'whose %2F an upstream may decode to "/"'],
  ['/files/a%2fb', 'a%2fb', 'whose %2f an upstream may decode to "/"'],
  ['/files/a%5cb', 'a%5cb', 'whose %5c an upstream may decode to "\\"'],
  ['/files/a%5C..', 'a%5C..', 'whose %5C an upstream may decode to "\\"'],
  ['/x/%252e%252e/y', '%252e%252e', 'whose %25 an upstream that decodes twice reads as "%"'],
];

const PATH_SEGMENT_ROWS: readonly BadSpec[] = READ_AS_ANOTHER_PATH.map(([path, segment, why]) => ({
  name: `refuses a path template with the literal segment ${segment}`,
  text: `wrap "t" version="1"\nbase-url "https://api.example.com/tenants/acme"\ncan get thing {\n    path "${path}"\n}\n`,
  errors: [
    {
      code: 'SPEC_PATH_TEMPLATE',
      line: 4,
      column: 10,
      says: `grant get_thing: path ${JSON.stringify(path)} has the segment ${JSON.stringify(segment)}, ${why}`,
    },
  ],
}));

// A segment that mixes literal text and parameters: its literal text is judged as the
// upstream would read the segment with any value in place.
const MIXED_SEGMENT_ROWS: readonly BadSpec[] = (
  [
    ['/a/..;{x}/b', '..;{x}', 'which reads as ".." without its ";" parameters'],
    ['/a/%2e%2e;{x}', '%2e%2e;{x}', 'which reads as ".." once percent-decoded'],
    ['/files/{name}%2Fetc', '{name}%2Fetc', 'whose %2F an upstream may decode to "/"'],
    ['/files/{name}%5c..', '{name}%5c..', 'whose %5c an upstream may decode to "\\"'],
    ['/x/{a}.%252e', '{a}.%252e', 'whose %25 an upstream that decodes twice reads as "%"'],
  ] as const
).map(([path, segment, why]) => ({
  name: `refuses the mixed segment ${segment}, whose literal text an upstream may read as another path`,
  text: `wrap "t" version="1"\nbase-url "https://api.example.com/tenants/acme"\ncan get thing {\n    path "${path}"\n}\n`,
  errors: [
    {
      code: 'SPEC_PATH_TEMPLATE',
      line: 4,
      column: 10,
      says: `grant get_thing: path ${JSON.stringify(path)} has the segment ${JSON.stringify(segment)}, ${why}`,
    },
  ],
}));

const BASE_URL_SEGMENT_ROWS: readonly BadSpec[] = [
  ...READ_AS_ANOTHER_PATH.map(
    ([path, segment, why]) => [`https://api.example.com${path}`, segment, why] as const,
  ),
  ['https://api.example.com/tenants/acme/..', '..', 'a dot segment'],
  ['https://api.example.com/tenants/./acme', '.', 'a dot segment'],
  [
    'https://api.example.com/tenants\\acme',
    'tenants\\acme',
    'whose "\\" a URL parser reads as "/"',
  ],
].map(([url, segment, why]) => ({
  name: `refuses a base-url whose path has the segment ${segment}`,
  text: `wrap "t" version="1"\nbase-url ${JSON.stringify(url)}\n`,
  errors: [
    {
      code: 'SPEC_BASE_URL',
      line: 2,
      column: 10,
      says: `base-url: ${JSON.stringify(url)}: its path has the segment ${JSON.stringify(segment)}, ${why}`,
    },
  ],
}));

const BAD: readonly BadSpec[] = [
  // ---- KDL and node shape -------------------------------------------------------------
  {
    name: 'refuses text that is not KDL 2.0 (a bare keyword)',
    text: http`
      can list issues {
          path "/issues"
          deprecated true
      }
    `,
    errors: [
      { code: 'SPEC_SYNTAX', line: 5, column: 20, says: 'invalid KDL: Invalid keyword "true"' },
    ],
  },
  {
    name: 'reports a block left open at the node that opens it, with the end of the file',
    text: http`
      can list issues {
          path "/issues"
      can get issue {
          path "/issues/{number}"
      }
    `,
    errors: [
      {
        code: 'SPEC_UNCLOSED_BLOCK',
        line: 3,
        column: 1,
        says: '`can list issues` opens a block at 3:17 that is never closed: the file ends at 8:1 with a block open',
      },
    ],
  },
  {
    name: 'reports the inner block left open when a } indented for its outer block closes it',
    text: http`
      can list issues {
          query {
              state "string"
          path "/issues"
      }
      can get issue {
          path "/issues/{number}"
      }
    `,
    errors: [
      {
        code: 'SPEC_UNCLOSED_BLOCK',
        line: 4,
        column: 5,
        says: '`query` opens a block at 4:11 that is likely never closed: the } at 7:1, indented less than `query`, closes it instead, and the file ends at 11:1 with a block open',
      },
    ],
  },
  {
    name: 'reports a block left open beside the other syntax errors, each once',
    text: http`
      can list issues {
          path "/issues"
          deprecated true
    `,
    errors: [
      {
        code: 'SPEC_UNCLOSED_BLOCK',
        line: 3,
        column: 1,
        says: '`can list issues` opens a block at 3:17 that is never closed',
      },
      { code: 'SPEC_SYNTAX', line: 5, column: 20, says: 'invalid KDL: Invalid keyword "true"' },
    ],
  },
  {
    name: 'refuses a } that closes no block, where it stands',
    text: http`
      can list issues {
          path "/issues"
      }
      }
    `,
    errors: [
      {
        code: 'SPEC_STRAY_BRACE',
        line: 6,
        column: 1,
        says: 'this } closes no block: every { above it is closed already',
      },
    ],
  },
  {
    name: 'reports an extra } at the line that closes its block early, not at the last }',
    text: http`
      can list issues {
          query {
              state "string"
          }
          }
          path "/issues"
      }
      can get issue {
          path "/issues/{number}"
      }
    `,
    errors: [
      {
        code: 'SPEC_STRAY_BRACE',
        line: 7,
        column: 5,
        says: 'this } is likely one too many: indented deeper than `can list issues` at 3:1, it closes that block early, and the } at 9:1 then closes no block',
      },
    ],
  },
  {
    name: 'refuses an unknown top-level node',
    text: spec`
      endpoint "https://api.example.com"
    `,
    errors: [
      { code: 'SPEC_UNKNOWN_NODE', line: 2, column: 1, says: 'unknown top-level node `endpoint`' },
    ],
  },
  {
    name: 'refuses an unknown node inside a grant',
    text: http`
      can list issues {
          path "/issues"
          headers {
              accept "json"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_UNKNOWN_NODE',
        line: 5,
        column: 5,
        says: 'grant list_issues: unknown node `headers` in a grant',
      },
    ],
  },
  {
    name: 'refuses an unknown node inside set',
    text: http`
      can list issues {
          path "/issues"
          set {
              cookie "session" "abc"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_UNKNOWN_NODE',
        line: 6,
        column: 9,
        says: 'grant list_issues: unknown node `cookie` in set',
      },
    ],
  },
  {
    name: 'refuses an unknown node inside access',
    text: spec`
      access {
          token env="MCP_TOKEN"
      }
    `,
    errors: [
      { code: 'SPEC_UNKNOWN_NODE', line: 3, column: 5, says: 'access: unknown node `token`' },
    ],
  },
  {
    name: 'refuses an unknown property on a field',
    text: http`
      can list issues {
          path "/issues"
          query {
              per_page "integer" maximum=100
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_UNKNOWN_PROPERTY',
        line: 6,
        column: 28,
        says: 'grant list_issues: query field per_page: `per_page` has no property maximum=',
      },
    ],
  },
  {
    name: 'suggests the property an unknown one misspells, and lists the known ones',
    text: http`
      can list issues {
          path "/issues"
          query {
              per_page "integer" mx=100
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_UNKNOWN_PROPERTY',
        line: 6,
        column: 28,
        says: '`per_page` has no property mx=; did you mean max=? (known: ',
      },
    ],
  },
  {
    name: 'checks the children of a misspelled node as the kind it closely names',
    text: http`
      can list issues {
          path "/issues"
          qurey {
              per_page "integer" maximum=100
              state "strng"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_UNKNOWN_NODE',
        line: 5,
        column: 5,
        says: 'unknown node `qurey` in a grant; did you mean `query`?',
      },
      {
        code: 'SPEC_UNKNOWN_PROPERTY',
        line: 6,
        column: 28,
        says: '`per_page` has no property maximum=',
      },
      { code: 'SPEC_UNKNOWN_TYPE', line: 7, column: 15, says: 'strng' },
    ],
  },
  {
    name: 'reports a string left open at its opening quote, not where the parser stopped',
    text: spec`
      base-url "https://api.example.com
      can list issues {
          path "/issues"
      }
    `,
    errors: [
      {
        code: 'SPEC_SYNTAX',
        line: 2,
        column: 10,
        says: 'invalid KDL: this string is not closed on its line',
      },
    ],
  },
  {
    name: 'refuses an extra argument on a node that takes one',
    text: spec`
      base-url "https://api.example.com" "https://backup.example.com"
    `,
    errors: [
      {
        code: 'SPEC_UNKNOWN_PROPERTY',
        line: 2,
        column: 36,
        says: '`base-url` takes 1 argument(s), found an extra one: "https://backup.example.com"',
      },
    ],
  },
  {
    name: 'refuses a string where a number is expected',
    text: http`
      can list issues {
          path "/issues"
          query {
              per_page "integer" min="1"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_VALUE_TYPE',
        line: 6,
        column: 28,
        says: 'grant list_issues: query field per_page: min= must be a number, got string',
      },
    ],
  },
  {
    name: 'refuses a max-rows that is not a whole number',
    text: sql`
      can query orders {
          sql "SELECT id FROM orders"
          max-rows 1.5
      }
    `,
    errors: [
      {
        code: 'SPEC_VALUE_TYPE',
        line: 5,
        column: 14,
        says: 'grant query_orders: max-rows value must be a whole number, got 1.5',
      },
    ],
  },
  {
    name: 'refuses a base-url with no connections to the upstream',
    text: spec`
      base-url "https://api.example.com" connections=0
      can list issues {
          describe "Issues."
          path "/issues"
      }
    `,
    errors: [
      {
        code: 'SPEC_VALUE_TYPE',
        line: 2,
        column: 36,
        says: 'connections= must be at least 1, got 0',
      },
    ],
  },
  {
    name: 'refuses an integer literal beyond 2^53 rather than rounding it',
    text: http`
      can list issues {
          path "/issues"
          query {
              since_id "integer" max=1152921504606846976
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_VALUE_TYPE',
        line: 6,
        column: 28,
        says: 'query field since_id: max=1152921504606846976 is beyond the exactly representable integers',
      },
    ],
  },
  {
    name: 'refuses a max-rows beyond 2^53 and says so instead of calling it fractional',
    text: sql`
      can query orders {
          sql "SELECT id FROM orders"
          max-rows 1152921504606846976
      }
    `,
    errors: [
      {
        code: 'SPEC_VALUE_TYPE',
        line: 5,
        column: 14,
        says: 'grant query_orders: max-rows value 1152921504606846976 is beyond the exactly representable integers',
      },
    ],
  },
  {
    name: 'refuses an HTTP method that does not exist',
    text: http`
      can archive issue {
          method "FETCH"
          path "/issues/{number}/archive"
      }
    `,
    errors: [
      {
        code: 'SPEC_VALUE_TYPE',
        line: 4,
        column: 12,
        says: 'grant archive_issue: method "FETCH" is not one of GET, POST, PUT, PATCH, DELETE',
      },
    ],
  },

  // ---- Missing and duplicate nodes ----------------------------------------------------
  {
    name: 'refuses a spec without wrap',
    text: kdl`
      base-url "https://api.example.com"
    `,
    errors: [{ code: 'SPEC_MISSING', line: 1, column: 1, says: 'the spec needs `wrap' }],
  },
  {
    name: 'refuses a wrap without version',
    text: kdl`
      wrap "t"
    `,
    errors: [{ code: 'SPEC_MISSING', line: 1, column: 1, says: '`wrap` needs version=' }],
  },
  {
    name: 'refuses auth bearer without env',
    text: spec`
      auth bearer
    `,
    errors: [{ code: 'SPEC_MISSING', line: 2, column: 1, says: '`auth` needs env=' }],
  },
  {
    name: 'refuses base-url given twice',
    text: http`
      base-url "https://api.example.org"
    `,
    errors: [
      {
        code: 'SPEC_DUPLICATE',
        line: 3,
        column: 1,
        says: '`base-url` may appear once (first at line 2)',
      },
    ],
  },
  {
    name: 'refuses the same field declared twice in one block',
    text: http`
      can list issues {
          path "/issues"
          query {
              state "string"
              state "string"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_DUPLICATE',
        line: 7,
        column: 9,
        says: 'grant list_issues: query field state is declared twice (first at line 6)',
      },
    ],
  },
  {
    name: 'refuses two query fields sent upstream under the same as= name',
    text: http`
      can list issues {
          path "/issues"
          query {
              search "string" as="q"
              text "string" as="q"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_DUPLICATE',
        line: 7,
        column: 9,
        says: 'grant list_issues: query field text: upstream query key "q" is also query field search',
      },
    ],
  },

  // ---- Types and tool names -----------------------------------------------------------
  {
    name: 'refuses an unknown field type',
    text: http`
      can list issues {
          path "/issues"
          query {
              per_page "int"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_UNKNOWN_TYPE',
        line: 6,
        column: 18,
        says: 'grant list_issues: query field per_page: unknown type "int"',
      },
    ],
  },
  {
    name: 'refuses an object field in a query',
    text: http`
      can list issues {
          path "/issues"
          query {
              filter "object" {
                  state "string"
              }
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_UNKNOWN_TYPE',
        line: 6,
        column: 16,
        says: 'grant list_issues: query field filter: type object is not allowed in query',
      },
    ],
  },
  {
    name: 'refuses two grants that give the same tool name',
    text: http`
      can list open-issues {
          path "/issues"
      }
      can list open_issues {
          path "/issues/open"
      }
    `,
    errors: [
      {
        code: 'SPEC_DUPLICATE_TOOL',
        line: 6,
        column: 1,
        says: 'grant list_open_issues: tool name list_open_issues is already taken by the grant at line 3',
      },
    ],
  },
  {
    name: 'refuses a tool name longer than 64 characters',
    text: http`
      can list issues-of-the-acme-organisation-that-are-open-and-assigned-to-me {
          path "/issues"
      }
    `,
    errors: [
      {
        code: 'SPEC_TOOL_NAME',
        line: 3,
        column: 1,
        says: 'tool name "list_issues_of_the_acme_organisation_that_are_open_and_assigned_to_me" must match',
      },
    ],
  },
  {
    name: 'refuses a verb outside the table when no method is given',
    text: http`
      can archive issue {
          path "/issues/{number}/archive"
      }
    `,
    errors: [
      {
        code: 'SPEC_UNKNOWN_VERB',
        line: 3,
        column: 5,
        says: 'grant archive_issue: unknown verb "archive"',
      },
    ],
  },

  // ---- Path templates -----------------------------------------------------------------
  {
    name: 'refuses a path parameter the template does not have',
    text: http`
      can get issue {
          path "/issues/{number}" {
              issue_number "integer"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_PATH_PARAM',
        line: 5,
        column: 9,
        says: 'grant get_issue: path param issue_number is declared but the template "/issues/{number}" has no {issue_number}',
      },
    ],
  },
  {
    name: 'refuses a path template without a leading slash',
    text: http`
      can list issues {
          path "issues"
      }
    `,
    errors: [
      {
        code: 'SPEC_PATH_TEMPLATE',
        line: 4,
        column: 10,
        says: 'grant list_issues: path "issues" must start with "/"',
      },
    ],
  },
  {
    name: 'refuses a path template with a .. segment',
    text: http`
      can get issue {
          path "/repos/{owner}/../issues"
      }
    `,
    errors: [
      {
        code: 'SPEC_PATH_TEMPLATE',
        line: 4,
        column: 10,
        says: 'grant get_issue: path "/repos/{owner}/../issues" must not contain "." or ".." segments',
      },
    ],
  },
  {
    name: 'refuses two path parameters side by side in one segment, naming the segment',
    text: http`
      can get range {
          path "/ranges/{a}{b}.json"
      }
    `,
    errors: [
      {
        code: 'SPEC_PATH_TEMPLATE',
        line: 4,
        column: 10,
        says: 'grant get_range: path "/ranges/{a}{b}.json" has the segment "{a}{b}.json", which puts {a} and {b} side by side: literal text must separate two parameters',
      },
    ],
  },
  ...MIXED_SEGMENT_ROWS,
  {
    name: 'refuses an array path parameter that allows no items: its segment would be empty',
    text: http`
      can get items {
          path "/items/{ids}" {
              ids "string[]" min-items=0
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_PROPERTY_TYPE',
        line: 5,
        column: 24,
        says: 'grant get_items: path param ids: an array path param has at least one item',
      },
    ],
  },
  {
    name: 'refuses an array path parameter of a type other than string[] or integer[]',
    text: http`
      can get items {
          path "/items/{ids}" {
              ids "number[]"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_PATH_PARAM',
        line: 5,
        column: 13,
        says: 'grant get_items: path param ids: a path param fills one segment: it must be string, integer, number, boolean, string[] or integer[] (items joined with commas), not number[]',
      },
    ],
  },
  {
    name: 'refuses a path template with a query string',
    text: http`
      can list issues {
          path "/issues?state=open"
      }
    `,
    errors: [
      {
        code: 'SPEC_PATH_TEMPLATE',
        line: 4,
        column: 10,
        says: 'grant list_issues: path "/issues?state=open" must not contain "?" or "#"',
      },
    ],
  },
  {
    name: 'refuses a path template with an empty segment',
    text: http`
      can list issues {
          path "/repos//issues"
      }
    `,
    errors: [
      {
        code: 'SPEC_PATH_TEMPLATE',
        line: 4,
        column: 10,
        says: 'grant list_issues: path "/repos//issues" must not contain an empty segment',
      },
    ],
  },
  ...PATH_SEGMENT_ROWS,
  {
    name: 'refuses a default on a path parameter, which is always required',
    text: http`
      can get issue {
          path "/issues/{number}" {
              number "integer" default=1
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_PROPERTY_TYPE',
        line: 5,
        column: 26,
        says: 'grant get_issue: path param number: a path param is always required; it takes no default',
      },
    ],
  },

  // ---- Grant kind ---------------------------------------------------------------------
  {
    name: 'refuses a grant with both sql and path',
    text: http`
      database env="DATABASE_URL"
      can get order {
          path "/orders/{id}"
          sql "SELECT 1"
      }
    `,
    errors: [
      {
        code: 'SPEC_GRANT_KIND',
        line: 6,
        column: 9,
        says: 'grant get_order: a grant has either a path (HTTP) or a sql statement (Postgres), not both',
      },
    ],
  },
  {
    name: 'refuses a grant with neither sql nor path',
    text: http`
      can get order {
          describe "An order."
      }
    `,
    errors: [
      {
        code: 'SPEC_GRANT_KIND',
        line: 3,
        column: 1,
        says: 'grant get_order: a grant needs `path` (an HTTP operation) or `sql`',
      },
    ],
  },
  {
    name: 'refuses a query block in a sql grant',
    text: sql`
      can get order {
          sql "SELECT id FROM orders"
          query {
              id "integer"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_GRANT_KIND',
        line: 5,
        column: 5,
        says: 'grant get_order: `query` belongs to HTTP grants; this grant is sql',
      },
    ],
  },
  {
    name: 'refuses a set block in a sql grant',
    text: sql`
      can get order {
          sql "SELECT id FROM orders"
          set {
              query "expand" "lines"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_GRANT_KIND',
        line: 5,
        column: 5,
        says: 'grant get_order: `set` belongs to HTTP grants; this grant is sql',
      },
    ],
  },
  {
    name: 'refuses a params block in an HTTP grant',
    text: http`
      can get order {
          path "/orders"
          params {
              id "integer"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_GRANT_KIND',
        line: 5,
        column: 5,
        says: 'grant get_order: `params` belongs to sql grants; this grant is HTTP',
      },
    ],
  },
  {
    name: 'refuses max-rows in an HTTP grant',
    text: http`
      can get order {
          path "/orders"
          max-rows 10
      }
    `,
    errors: [
      {
        code: 'SPEC_GRANT_KIND',
        line: 5,
        column: 5,
        says: 'grant get_order: `max-rows` belongs to sql grants; this grant is HTTP',
      },
    ],
  },
  {
    name: 'refuses an HTTP grant when the spec has no base-url',
    text: spec`
      can list issues {
          path "/issues"
      }
    `,
    errors: [
      {
        code: 'SPEC_NO_BASE_URL',
        line: 3,
        column: 10,
        says: 'grant list_issues: an HTTP grant needs a top-level `base-url',
      },
    ],
  },
  {
    name: 'refuses a sql grant when the spec has no database',
    text: spec`
      can query orders {
          sql "SELECT id FROM orders"
      }
    `,
    errors: [
      {
        code: 'SPEC_NO_DATABASE',
        line: 3,
        column: 9,
        says: 'grant query_orders: a sql grant needs a top-level `database',
      },
    ],
  },

  // ---- SQL ----------------------------------------------------------------------------
  {
    name: 'refuses a placeholder beyond the declared params ($3 with two params)',
    text: sql`
      can query orders {
          sql "SELECT id FROM orders WHERE customer_id = $1 AND status = $2 LIMIT $3"
          params {
              customer_id "integer"
              status "string"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_SQL_PLACEHOLDERS',
        line: 4,
        column: 9,
        says: 'grant query_orders: sql uses $3 but params declares 2',
      },
    ],
  },
  {
    name: 'refuses a param the statement never uses',
    text: sql`
      can query orders {
          sql "SELECT id FROM orders WHERE customer_id = $1"
          params {
              customer_id "integer"
              status "string"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_SQL_PLACEHOLDERS',
        line: 7,
        column: 9,
        says: 'grant query_orders: param status is $2, which the statement never uses',
      },
    ],
  },
  {
    name: "does not count '$1' inside a string literal as a placeholder",
    text: sql`
      can query orders {
          sql "SELECT id FROM orders WHERE note = '$1'"
          params {
              note "string"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_SQL_PLACEHOLDERS',
        line: 6,
        column: 9,
        says: 'grant query_orders: param note is $1, which the statement never uses',
      },
    ],
  },
  {
    name: 'refuses two statements in one grant',
    text: sql`
      can query orders {
          sql "SELECT id FROM orders; DELETE FROM orders"
      }
    `,
    errors: [
      {
        code: 'SPEC_SQL_MULTIPLE',
        line: 4,
        column: 9,
        says: 'grant query_orders: sql holds more than one statement',
      },
    ],
  },
  {
    name: 'refuses as= on a sql param, which is bound by position',
    text: sql`
      can query orders {
          sql "SELECT id FROM orders WHERE customer_id = $1"
          params {
              customer_id "integer" as="customer"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_PROPERTY_TYPE',
        line: 6,
        column: 31,
        says: 'grant query_orders: param customer_id: as= applies to query and body fields',
      },
    ],
  },

  // ---- base-url -----------------------------------------------------------------------
  {
    name: 'refuses a base-url that is not absolute',
    text: spec`
      base-url "api.example.com"
    `,
    errors: [
      {
        code: 'SPEC_BASE_URL',
        line: 2,
        column: 10,
        says: 'base-url: "api.example.com" is not an absolute URL',
      },
    ],
  },
  {
    name: 'refuses a base-url with the ftp scheme',
    text: spec`
      base-url "ftp://files.example.com"
    `,
    errors: [
      {
        code: 'SPEC_BASE_URL',
        line: 2,
        column: 10,
        says: 'base-url: "ftp://files.example.com": scheme ftp: is not http or https',
      },
    ],
  },
  {
    name: 'refuses a base-url with a query',
    text: spec`
      base-url "https://api.example.com/v1?key=abc"
    `,
    errors: [
      {
        code: 'SPEC_BASE_URL',
        line: 2,
        column: 10,
        says: 'base-url: "https://api.example.com/v1?key=abc": a base-url takes no query or fragment',
      },
    ],
  },
  {
    name: 'refuses a base-url with credentials in it',
    text: spec`
      base-url "https://user:secret@api.example.com"
    `,
    errors: [
      {
        code: 'SPEC_BASE_URL',
        line: 2,
        column: 10,
        says: 'credentials belong in `auth`, not in the URL',
      },
    ],
  },
  {
    name: 'refuses a base-url whose path starts with // or holds an empty segment',
    text: spec`
      base-url "https://example.invalid//api.example.com/v2"
    `,
    errors: [
      {
        code: 'SPEC_BASE_URL',
        line: 2,
        column: 10,
        says: 'its path has an empty segment (`//`): write each segment once',
      },
    ],
  },
  {
    name: 'refuses a base-url with an empty segment inside its path',
    text: spec`
      base-url "https://api.example.com/v1//items/"
    `,
    errors: [
      {
        code: 'SPEC_BASE_URL',
        line: 2,
        column: 10,
        says: '"https://api.example.com/v1//items/": its path has an empty segment (`//`)',
      },
    ],
  },
  ...BASE_URL_SEGMENT_ROWS,

  // ---- arg= projections and argument names --------------------------------------------
  {
    name: 'refuses arg= on a field that is not required',
    text: http`
      can update file {
          path "/files"
          body {
              commit "object" {
                  message "string" arg="commit_message"
              }
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_ARG_PROJECTION',
        line: 7,
        column: 30,
        says: 'grant update_file: body field commit: field message: arg= applies to required fields',
      },
    ],
  },
  {
    name: 'refuses arg= on an integer field',
    text: http`
      can update file {
          path "/files"
          body {
              commit "object" {
                  size "integer" required=#true arg="commit_size"
              }
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_ARG_PROJECTION',
        line: 7,
        column: 43,
        says: 'grant update_file: body field commit: field size: arg= applies to string fields, not integer',
      },
    ],
  },
  {
    name: 'refuses arg= naming an argument the grant already has',
    text: http`
      can update file {
          path "/files"
          body {
              message "string"
              commit "object" {
                  message "string" required=#true arg="message"
              }
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_ARG_PROJECTION',
        line: 8,
        column: 45,
        says: 'grant update_file: projected argument message collides with body field message (line 6)',
      },
    ],
  },
  {
    name: 'refuses arg= on a top-level field',
    text: http`
      can update file {
          path "/files"
          body {
              message "string" required=#true arg="commit_message"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_ARG_PROJECTION',
        line: 6,
        column: 41,
        says: 'grant update_file: body field message: arg= applies to nested fields',
      },
    ],
  },
  {
    name: 'refuses a query field named like a path parameter',
    text: http`
      can list issues {
          path "/repos/{owner}/issues"
          query {
              owner "string"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_ARGUMENT_COLLISION',
        line: 6,
        column: 9,
        says: 'grant list_issues: query field owner collides with path param owner (line 4)',
      },
    ],
  },
  {
    name: "refuses a set query key equal to a query field's upstream name",
    text: http`
      can list issues {
          path "/issues"
          query {
              search "string" as="q"
          }
          set {
              query "q" "is:open"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_ARGUMENT_COLLISION',
        line: 9,
        column: 9,
        says: 'grant list_issues: set query q: query key "q" is also query field search',
      },
    ],
  },
  {
    name: 'refuses a set body path inside a body field',
    text: http`
      can update file {
          path "/files"
          body {
              commit "object" {
                  message "string"
              }
          }
          set {
              body "commit.author" "mcp-beaver"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_ARGUMENT_COLLISION',
        line: 11,
        column: 9,
        says: 'grant update_file: set body commit.author: body path "commit.author" overlaps the caller\'s field at "commit"',
      },
    ],
  },

  // ---- exclusive ----------------------------------------------------------------------
  {
    name: 'refuses exclusive naming a field the block does not have',
    text: http`
      can list issues {
          path "/issues"
          query {
              since "string"
              search "string" as="q"
              exclusive "since" "q"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_EXCLUSIVE',
        line: 8,
        column: 27,
        says: 'grant list_issues: exclusive names q, which is not a field of this block',
      },
    ],
  },
  {
    name: 'refuses exclusive naming a required field',
    text: http`
      can list issues {
          path "/issues"
          query {
              since "string"
              search "string" required=#true
              exclusive "since" "search"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_EXCLUSIVE',
        line: 8,
        column: 27,
        says: 'grant list_issues: exclusive names search, which is required',
      },
    ],
  },

  // ---- Patterns -----------------------------------------------------------------------
  {
    name: 'refuses an invalid regular expression',
    text: http`
      can list issues {
          path "/issues"
          query {
              creator "string" pattern="^[a-z"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_PATTERN',
        line: 6,
        column: 26,
        says: 'grant list_issues: query field creator: pattern "^[a-z" is not a valid regular expression',
      },
    ],
  },
  {
    name: 'refuses a pattern with nested quantifiers',
    text: http`
      can list issues {
          path "/issues"
          query {
              creator "string" pattern="^(a+)+$"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_PATTERN_UNSAFE',
        line: 6,
        column: 26,
        says: 'grant list_issues: query field creator: pattern "^(a+)+$": a repeated group contains a repetition',
      },
    ],
  },
  {
    name: 'refuses a pattern with a backreference',
    text: http`
      can list issues {
          path "/issues"
          query {
              creator "string" pattern=#"^(a)\1$"#
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_PATTERN_UNSAFE',
        line: 6,
        column: 26,
        says: 'grant list_issues: query field creator: pattern "^(a)\\\\1$": backreferences',
      },
    ],
  },
  {
    name: 'refuses an unsafe restrict pattern',
    text: http`
      restrict {
          repo pattern="^([a-z]+)*$"
      }
      can list issues {
          path "/repos/{repo}/issues"
      }
    `,
    errors: [
      {
        code: 'SPEC_PATTERN_UNSAFE',
        line: 4,
        column: 10,
        says: 'restrict repo: pattern "^([a-z]+)*$": a repeated group contains a repetition',
      },
    ],
  },

  // ---- Defaults, properties, enum, restrict -------------------------------------------
  {
    name: 'refuses a default below the field min',
    text: http`
      can list issues {
          path "/issues"
          query {
              per_page "integer" min=1 max=100 default=0
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_DEFAULT',
        line: 6,
        column: 42,
        says: 'grant list_issues: query field per_page: default 0 is below min=1',
      },
    ],
  },
  {
    name: 'refuses a default that is not one of the enum values',
    text: http`
      can list issues {
          path "/issues"
          query {
              state "string" default="merged" {
                  enum "open" "closed"
              }
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_DEFAULT',
        line: 6,
        column: 24,
        says: 'grant list_issues: query field state: default "merged" is not one of the enum values',
      },
    ],
  },
  {
    name: 'refuses a default on a required field',
    text: http`
      can list issues {
          path "/issues"
          query {
              state "string" required=#true default="open"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_DEFAULT',
        line: 6,
        column: 39,
        says: 'grant list_issues: query field state: a required field never uses its default',
      },
    ],
  },
  {
    name: 'refuses min-length on an integer field',
    text: http`
      can list issues {
          path "/issues"
          query {
              page "integer" min-length=1
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_PROPERTY_TYPE',
        line: 6,
        column: 24,
        says: 'grant list_issues: query field page: min-length= does not apply to type integer',
      },
    ],
  },
  {
    name: 'refuses an enum value of the wrong type',
    text: http`
      can list issues {
          path "/issues"
          query {
              page "integer" {
                  enum 1 "2"
              }
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_ENUM',
        line: 7,
        column: 20,
        says: 'grant list_issues: query field page: enum value "2" is not an integer',
      },
    ],
  },
  {
    name: 'refuses a default that the restrict allowlist would refuse (defaults are filled after it runs)',
    text: http`
      restrict {
          priority "low" "normal"
      }
      can list issues {
          path "/issues"
          query {
              priority "string" default="urgent"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_RESTRICT',
        line: 9,
        column: 27,
        says: 'grant list_issues: argument priority: default "urgent" is not allowed by restrict priority',
      },
    ],
  },
  {
    name: 'refuses a query encoding other than percent or form',
    text: http`
      can list issues {
          path "/issues"
          query encoding="url" {
              q "string"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_VALUE_TYPE',
        line: 5,
        column: 11,
        says: 'grant list_issues: query encoding="url" must be "percent" or "form"',
      },
    ],
  },
  {
    name: 'refuses a restrict allowlist that shares no value with the field enum (no call could pass)',
    text: http`
      restrict {
          state "archived" "deleted"
      }
      can list issues {
          path "/issues"
          query {
              state "string" {
                  enum "open" "closed"
              }
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_RESTRICT',
        line: 4,
        column: 5,
        says: 'grant list_issues: restrict state: no allowed value of restrict state is in the enum of argument state ("open", "closed")',
      },
    ],
  },
  {
    name: 'refuses a restrict value that does not fit an integer argument',
    text: http`
      restrict {
          number 1 "2"
      }
      can get issue {
          path "/issues/{number}" {
              number "integer"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_RESTRICT',
        line: 4,
        column: 14,
        says: 'grant get_issue: restrict number: allowed value "2" is not an integer',
      },
    ],
  },

  // ---- Durations, rate limits, headers ------------------------------------------------
  {
    name: 'refuses a duration without a unit',
    text: spec`
      timeout "10"
    `,
    errors: [
      {
        code: 'SPEC_DURATION',
        line: 2,
        column: 9,
        says: 'timeout "10" is not a duration like 500ms, 10s, 2m',
      },
    ],
  },
  {
    name: 'refuses a grant timeout with a fraction and names the timeout',
    text: http`
      can list issues {
          path "/issues"
          timeout "1.5s"
      }
    `,
    errors: [
      {
        code: 'SPEC_DURATION',
        line: 5,
        column: 13,
        says: 'grant list_issues: timeout "1.5s" is not a duration',
      },
    ],
  },
  {
    name: 'refuses a rate limit written per minute as /min',
    text: http`
      can list issues {
          path "/issues"
          rate-limit "10/min"
      }
    `,
    errors: [
      {
        code: 'SPEC_RATE_LIMIT',
        line: 5,
        column: 16,
        says: 'grant list_issues: rate-limit "10/min" is not like "60/m"',
      },
    ],
  },
  {
    name: 'refuses a fixed Host header',
    text: spec`
      header "Host" "api.example.com"
    `,
    errors: [
      { code: 'SPEC_HEADER', line: 2, column: 1, says: 'header Host: Host is set by the gateway' },
    ],
  },
  {
    name: 'refuses a fixed Authorization header next to auth bearer',
    text: spec`
      auth bearer env="API_TOKEN"
      header "Authorization" "Bearer abc"
    `,
    errors: [
      {
        code: 'SPEC_HEADER',
        line: 3,
        column: 1,
        says: 'header Authorization: Authorization carries the upstream credential from `auth`',
      },
    ],
  },
  {
    name: 'refuses a header name with a space',
    text: spec`
      header "X Api Version" "2"
    `,
    errors: [
      {
        code: 'SPEC_HEADER',
        line: 2,
        column: 1,
        says: 'header X Api Version: "X Api Version" is not a valid header name',
      },
    ],
  },

  // ---- from-claim ---------------------------------------------------------------------
  {
    name: 'refuses from-claim when access has no oauth',
    text: http`
      access {
          api-key env="MCP_KEYS"
      }
      can list issues {
          path "/issues"
          query {
              user "string" from-claim="sub"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_MISSING',
        line: 9,
        column: 23,
        says: 'grant list_issues: argument user: from-claim takes the value from a verified token',
      },
    ],
  },
  // ---- Reserved names -----------------------------------------------------------------
  {
    name: 'refuses a body field named __proto__, at the top and nested',
    text: http`
      can create thing {
          describe "d"
          path "/things"
          body {
              __proto__ "raw"
              meta "object" {
                  __proto__ "string"
              }
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_RESERVED_NAME',
        line: 7,
        column: 9,
        says: 'grant create_thing: body field "__proto__" is reserved',
      },
      {
        code: 'SPEC_RESERVED_NAME',
        line: 9,
        column: 13,
        says: 'grant create_thing: body field meta: field "__proto__" is reserved',
      },
    ],
  },
  {
    name: 'refuses a path param and a sql param named __proto__',
    text: http`
      database embedded
      can get thing {
          describe "d"
          path "/things/{__proto__}"
      }
      can query other {
          describe "d"
          sql "SELECT 1"
          params {
              __proto__ "string"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_RESERVED_NAME',
        line: 6,
        column: 10,
        says: 'grant get_thing: path param "__proto__" is reserved',
      },
      {
        code: 'SPEC_RESERVED_NAME',
        line: 12,
        column: 9,
        says: 'grant query_other: param "__proto__" is reserved',
      },
    ],
  },
  {
    name: 'refuses __proto__ as the value of as=, from-claim= and arg=',
    text: http`
      access {
          oauth issuer="https://idp.example.com" audience="https://t.example.com/mcp" jwks-uri="https://idp.example.com/jwks.json"
      }
      can create thing {
          describe "d"
          path "/things"
          query {
              q "string" as="__proto__"
              user "string" from-claim="__proto__"
          }
          body {
              commit "object" {
                  message "string" required=#true arg="__proto__"
              }
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_RESERVED_NAME',
        line: 10,
        column: 20,
        says: 'grant create_thing: query field q: as= "__proto__" is reserved',
      },
      {
        code: 'SPEC_RESERVED_NAME',
        line: 11,
        column: 23,
        says: 'query field user: from-claim= "__proto__" is reserved',
      },
      {
        code: 'SPEC_RESERVED_NAME',
        line: 15,
        column: 45,
        says: 'body field commit: field message: arg= "__proto__" is reserved',
      },
    ],
  },
  // ---- resources and prompts (spec-language.md, "Resources and prompts") ------------
  {
    name: 'refuses a resource URI without a scheme, and a template with a malformed variable',
    text: spec`
      resource "helpdesk/hours" text="9-5"
      resource "docs://x/{a-b}" text="x"
    `,
    errors: [
      {
        code: 'SPEC_RESOURCE_URI',
        line: 2,
        column: 10,
        says: 'resource helpdesk/hours: URI must be an absolute URI with a scheme, like docs://team/guide',
      },
      {
        code: 'SPEC_RESOURCE_URI',
        line: 3,
        column: 10,
        says: 'resource docs://x/{a-b}: URI variable {a-b} must be a name matching ^[A-Za-z_][A-Za-z0-9_]*$ (RFC 6570 level 1)',
      },
    ],
  },
  {
    name: 'refuses a resource URI over 2048 characters, which no read could match',
    text: `wrap "t" version="1"\nresource "docs://${'x'.repeat(2042)}" text="x"\n`,
    errors: [
      {
        code: 'SPEC_RESOURCE_URI',
        line: 2,
        column: 10,
        says: `resource docs://${'x'.repeat(2042)}: URI is over 2048 characters (counting one per variable), and a longer URI matches nothing`,
      },
    ],
  },
  {
    name: 'refuses a resource with no content source, and one with two',
    text: spec`
      resource "docs://x/none" describe="Nothing."
      resource "docs://x/both" text="a" file="README.md"
    `,
    errors: [
      {
        code: 'SPEC_RESOURCE_SOURCE',
        line: 2,
        column: 1,
        says: 'resource docs://x/none: a resource needs one content source: file "<path>", text="..." or from="<tool>"',
      },
      {
        code: 'SPEC_RESOURCE_SOURCE',
        line: 3,
        column: 1,
        says: 'resource docs://x/both: a resource has one content source; this one has file and text=',
      },
    ],
  },
  {
    name: 'refuses a template that is not read from a grant',
    text: spec`
      resource "docs://pages/{page}" text="x"
    `,
    errors: [
      {
        code: 'SPEC_RESOURCE_SOURCE',
        line: 2,
        column: 10,
        says: 'resource docs://pages/{page}: a template ({page}) needs from="<tool>": only a grant can fill its variables',
      },
    ],
  },
  {
    name: "refuses a resource file outside the spec's folder, with .., missing, or absolute",
    text: spec`
      resource "docs://a" file="../etc/passwd"
      resource "docs://b" file="/etc/passwd"
      resource "docs://c" {
          file "docs/no-such-file.md"
      }
    `,
    errors: [
      {
        code: 'SPEC_RESOURCE_FILE',
        line: 2,
        column: 21,
        says: 'resource docs://a: file "../etc/passwd" must not contain ".."',
      },
      {
        code: 'SPEC_RESOURCE_FILE',
        line: 3,
        column: 21,
        says: 'resource docs://b: file "/etc/passwd" must be relative to the spec',
      },
      {
        code: 'SPEC_RESOURCE_FILE',
        line: 5,
        column: 10,
        says: 'resource docs://c: file "docs/no-such-file.md" does not exist beside the spec',
      },
    ],
  },
  {
    name: 'refuses from= naming no tool',
    text: http`
      can get ticket {
          describe "d"
          path "/tickets/{id}"
      }
      resource "helpdesk://tickets/{id}" from="get_tickets"
    `,
    errors: [
      {
        code: 'SPEC_RESOURCE_FROM',
        line: 7,
        column: 36,
        says: 'resource helpdesk://tickets/{id}: from="get_tickets" names no tool (tools: get_ticket)',
      },
    ],
  },
  {
    name: 'refuses template variables that are not scalar arguments of the grant, and a required argument without a variable',
    text: http`
      can get ticket {
          describe "d"
          path "/tickets/{id}"
          query {
              tags "string[]"
              mine "boolean" from-claim="mine"
          }
      }
      access {
          oauth issuer="https://id.example.com" audience="https://mcp.example.com" jwks-uri="https://id.example.com/jwks"
      }
      resource "helpdesk://t/{id}/{colour}" from="get_ticket" name="a"
      resource "helpdesk://t/{id}/tags/{tags}" from="get_ticket" name="b"
      resource "helpdesk://t/{id}/mine/{mine}" from="get_ticket" name="c"
      resource "helpdesk://t/all" from="get_ticket" name="d"
    `,
    errors: [
      {
        code: 'SPEC_RESOURCE_FROM',
        line: 14,
        column: 10,
        says: 'resource helpdesk://t/{id}/{colour}: variable {colour} is not an argument of get_ticket (its arguments: id, tags)',
      },
      {
        code: 'SPEC_RESOURCE_FROM',
        line: 15,
        column: 10,
        says: "resource helpdesk://t/{id}/tags/{tags}: variable {tags} fills get_ticket's string[] argument; a URI variable holds one string, integer, number or boolean",
      },
      {
        code: 'SPEC_RESOURCE_FROM',
        line: 16,
        column: 10,
        says: 'resource helpdesk://t/{id}/mine/{mine}: variable {mine} is not an argument of get_ticket (its arguments: id, tags)',
      },
      {
        code: 'SPEC_RESOURCE_FROM',
        line: 17,
        column: 10,
        says: 'resource helpdesk://t/all: get_ticket requires id; the URI needs a {id} variable',
      },
    ],
  },
  {
    name: 'refuses mime= on a from= resource',
    text: http`
      can list tickets {
          describe "d"
          path "/tickets"
      }
      resource "helpdesk://tickets" from="list_tickets" mime="text/plain"
    `,
    errors: [
      {
        code: 'SPEC_PROPERTY_TYPE',
        line: 7,
        column: 51,
        says: 'resource helpdesk://tickets: mime= does not apply to from= resources: their content is the envelope as application/json',
      },
    ],
  },
  {
    name: 'refuses two resources with one URI, and two with one name',
    text: spec`
      resource "docs://a/hours" text="9-5"
      resource "docs://a/hours" text="8-4" name="hours2"
      resource "docs://b/hours" text="7-3"
    `,
    errors: [
      {
        code: 'SPEC_DUPLICATE_RESOURCE',
        line: 3,
        column: 10,
        says: 'resource docs://a/hours: URI docs://a/hours is already served by the resource at line 2',
      },
      {
        code: 'SPEC_DUPLICATE_RESOURCE',
        line: 4,
        column: 1,
        says: 'resource docs://b/hours: name "hours" is already taken by the resource at line 2; give one of them name="..."',
      },
    ],
  },
  {
    name: 'refuses a resource title given twice, and an unknown child of a resource',
    text: spec`
      resource "docs://a" text="x" title="One" {
          title "Two"
          mime "text/plain"
      }
    `,
    errors: [
      {
        code: 'SPEC_DUPLICATE',
        line: 3,
        column: 5,
        says: 'resource docs://a: `title` is given twice (as title= on line 2 and as a child)',
      },
      {
        code: 'SPEC_UNKNOWN_NODE',
        line: 4,
        column: 5,
        says: 'resource docs://a: unknown node `mime` in a resource (known: title, describe, file, scope)',
      },
    ],
  },
  {
    name: 'refuses a prompt name outside the pattern, an argument name outside it, and a duplicate prompt',
    text: spec`
      prompt "triage ticket" {
          message "user" "x"
      }
      prompt "ok" {
          argument "a b"
          message "user" "x"
      }
      prompt "ok" {
          message "user" "y"
      }
    `,
    errors: [
      {
        code: 'SPEC_PROMPT_NAME',
        line: 2,
        column: 8,
        says: 'prompt triage ticket: prompt name "triage ticket" must match ^[A-Za-z0-9_.-]{1,64}$',
      },
      {
        code: 'SPEC_PROMPT_NAME',
        line: 6,
        column: 5,
        says: 'prompt ok: argument a b: argument name "a b" must match ^[A-Za-z0-9_.-]{1,64}$',
      },
      {
        code: 'SPEC_DUPLICATE_PROMPT',
        line: 9,
        column: 8,
        says: 'prompt ok: prompt name ok is already taken by the prompt at line 5',
      },
    ],
  },
  {
    name: 'refuses a message role other than user or assistant, and a message with neither or both of text and resource=',
    text: spec`
      resource "docs://hours" text="9-5"
      prompt "p" {
          message "system" "x"
          message "user"
          message "user" "x" resource="docs://hours"
      }
    `,
    errors: [
      {
        code: 'SPEC_PROMPT_MESSAGE',
        line: 4,
        column: 13,
        says: 'prompt p: message role "system" must be "user" or "assistant"',
      },
      {
        code: 'SPEC_PROMPT_MESSAGE',
        line: 5,
        column: 5,
        says: 'prompt p: a message needs a text (message "user" "...") or resource="<uri>"',
      },
      {
        code: 'SPEC_PROMPT_MESSAGE',
        line: 6,
        column: 5,
        says: 'prompt p: a message has a text or resource="...", not both',
      },
    ],
  },
  {
    name: 'refuses a placeholder that is not a declared argument, in a text and in resource=',
    text: spec`
      resource "docs://hours" text="9-5"
      prompt "p" {
          argument "id"
          message "user" "Triage {id} for {who}."
          message "user" resource="docs://{page}"
      }
    `,
    errors: [
      {
        code: 'SPEC_PLACEHOLDER',
        line: 5,
        column: 20,
        says: 'prompt p: placeholder {who} is not a declared argument (declared: id)',
      },
      {
        code: 'SPEC_PLACEHOLDER',
        line: 6,
        column: 20,
        says: 'prompt p: placeholder {page} is not a declared argument (declared: id)',
      },
      {
        code: 'SPEC_PROMPT_RESOURCE',
        line: 6,
        column: 20,
        says: 'prompt p: resource="docs://{page}" matches no declared resource or template',
      },
    ],
  },
  {
    name: 'refuses a resource= message that matches no resource, and a prompt without messages',
    text: spec`
      resource "docs://hours" text="9-5"
      prompt "p" {
          message "user" resource="docs://opening-hours"
      }
      prompt "q" {
          describe "Nothing to say."
      }
    `,
    errors: [
      {
        code: 'SPEC_PROMPT_RESOURCE',
        line: 4,
        column: 20,
        says: 'prompt p: resource="docs://opening-hours" matches no declared resource or template',
      },
      {
        code: 'SPEC_MISSING',
        line: 6,
        column: 1,
        says: 'prompt q: a prompt needs at least one `message`',
      },
    ],
  },
  {
    name: 'refuses a prompt default outside its enum, on a required argument, and an enum value against max-length, and an unsafe pattern',
    text: spec`
      prompt "p" {
          argument "tone" default="rude" {
              enum "friendly" "formal"
          }
          argument "id" required=#true default="1"
          argument "code" max-length=3 {
              enum "abcd"
          }
          argument "x" pattern="^(a+)+$"
          message "user" "{tone}{id}{code}{x}"
      }
    `,
    errors: [
      {
        code: 'SPEC_DEFAULT',
        line: 3,
        column: 21,
        says: 'prompt p: argument tone: default "rude" is not one of the enum values',
      },
      {
        code: 'SPEC_DEFAULT',
        line: 6,
        column: 34,
        says: 'prompt p: argument id: a required argument never uses its default; drop one of the two',
      },
      {
        code: 'SPEC_ENUM',
        line: 8,
        column: 14,
        says: 'prompt p: argument code: enum value "abcd" is longer than max-length=3',
      },
      {
        code: 'SPEC_PATTERN_UNSAFE',
        line: 10,
        column: 18,
        says: 'prompt p: argument x: pattern "^(a+)+$": a repeated group contains a repetition (nested quantifiers), which can take exponential time',
      },
    ],
  },
  {
    name: 'refuses pick and omit on one grant, blaming the later one',
    text: http`
      can list issues {
          path "/issues"
          pick "number"
          omit "body"
      }
    `,
    errors: [
      { code: 'SPEC_SHAPE', line: 6, column: 5, says: 'pick or omit, not both (pick is at 5:5)' },
    ],
  },
  {
    name: 'refuses pick paths that cannot be parsed, each at its own token',
    text: http`
      can list issues {
          path "/issues"
          pick "number" "user..login" "labels[]" "a[0].b" ""
      }
    `,
    errors: [
      {
        code: 'SPEC_SHAPE',
        line: 5,
        column: 19,
        says: 'pick "user..login": a path has a field name between every two dots',
      },
      {
        code: 'SPEC_SHAPE',
        line: 5,
        column: 33,
        says: 'pick "labels[]": a path ends with a field name',
      },
      { code: 'SPEC_SHAPE', line: 5, column: 44, says: '"a[0]" is not a field name' },
      { code: 'SPEC_SHAPE', line: 5, column: 53, says: 'a path names at least one field' },
    ],
  },
  {
    name: 'refuses an omit that steps into one field both with and without []',
    text: sql`
      can query orders {
          sql "SELECT 1"
          omit "lines[].sku" "lines.note"
      }
    `,
    errors: [
      {
        code: 'SPEC_SHAPE',
        line: 5,
        column: 24,
        says: 'omit "lines.note": lines steps into lines differently',
      },
    ],
  },
  {
    name: 'refuses a pick without paths',
    text: http`
      can list issues {
          path "/issues"
          pick
      }
    `,
    errors: [
      { code: 'SPEC_MISSING', line: 5, column: 5, says: '`pick` needs at least one field path' },
    ],
  },
  {
    name: 'refuses a max-bytes too small to hold the envelope',
    text: http`
      limits max-bytes=100
      can list issues {
          path "/issues"
          max-bytes 200
      }
    `,
    errors: [
      { code: 'SPEC_VALUE_TYPE', line: 3, column: 8, says: 'must be at least 512, got 100' },
      { code: 'SPEC_VALUE_TYPE', line: 6, column: 15, says: 'must be at least 512, got 200' },
    ],
  },
  {
    name: 'refuses an mcp-server name outside the server-name rule',
    text: spec`
      mcp-server "Tracker" url="https://tracker.example.com/mcp"
    `,
    errors: [
      {
        code: 'SPEC_MCP_SERVER_NAME',
        line: 2,
        column: 12,
        says: 'mcp-server Tracker: server name "Tracker" must match ^[a-z][a-z0-9-]{0,31}$',
      },
    ],
  },
  {
    name: 'refuses two mcp-servers of one name',
    text: spec`
      mcp-server "tracker" url="https://tracker.example.com/mcp"
      mcp-server "tracker" url="https://other.example.com/mcp"
    `,
    errors: [
      {
        code: 'SPEC_DUPLICATE_MCP_SERVER',
        line: 3,
        column: 12,
        says: 'mcp-server tracker: server name tracker is already taken by the mcp-server at line 2',
      },
    ],
  },
  {
    name: 'refuses an mcp-server with neither url nor command',
    text: spec`
      mcp-server "tracker" {
          timeout "5s"
      }
    `,
    errors: [
      {
        code: 'SPEC_MCP_TRANSPORT',
        line: 2,
        column: 1,
        says: 'mcp-server tracker: an mcp-server needs url="https://..." (Streamable HTTP) or a `command',
      },
    ],
  },
  {
    name: 'refuses an mcp-server with both url and command',
    text: spec`
      mcp-server "tracker" url="https://tracker.example.com/mcp" {
          command "node" "server.js"
      }
    `,
    errors: [
      {
        code: 'SPEC_MCP_TRANSPORT',
        line: 3,
        column: 5,
        says: 'mcp-server tracker: an mcp-server has url= (Streamable HTTP) or a `command` (stdio), not both',
      },
    ],
  },
  {
    name: 'refuses an mcp-server url that is not http(s)',
    text: spec`
      mcp-server "tracker" url="ftp://tracker.example.com/mcp"
    `,
    errors: [
      {
        code: 'SPEC_MCP_TRANSPORT',
        line: 2,
        column: 22,
        says: 'mcp-server tracker: url "ftp://tracker.example.com/mcp": scheme ftp: is not http or https',
      },
    ],
  },
  {
    name: 'refuses credentials in an mcp-server url',
    text: spec`
      mcp-server "tracker" url="https://bot:hunter2@tracker.example.com/mcp"
    `,
    errors: [
      {
        code: 'SPEC_MCP_TRANSPORT',
        line: 2,
        column: 22,
        says: 'credentials belong in `auth`, not in the URL',
      },
    ],
  },
  {
    name: 'refuses env on a Streamable HTTP mcp-server',
    text: spec`
      mcp-server "tracker" url="https://tracker.example.com/mcp" {
          env "LOG_LEVEL" "warn"
      }
    `,
    errors: [
      {
        code: 'SPEC_MCP_TRANSPORT',
        line: 3,
        column: 5,
        says: 'mcp-server tracker: `env` belongs to a stdio server (command); this one has url=',
      },
    ],
  },
  {
    name: 'refuses header and auth on a stdio mcp-server',
    text: spec`
      mcp-server "handbook" {
          command "node" "server.js"
          header "X-Team" "triage"
          auth bearer env="TOKEN"
      }
    `,
    errors: [
      {
        code: 'SPEC_MCP_TRANSPORT',
        line: 4,
        column: 5,
        says: 'mcp-server handbook: `header` belongs to a Streamable HTTP server (url=); this one has a command',
      },
      {
        code: 'SPEC_MCP_TRANSPORT',
        line: 5,
        column: 5,
        says: 'mcp-server handbook: `auth` belongs to a Streamable HTTP server (url=); this one has a command',
      },
    ],
  },
  {
    name: 'refuses an mcp-server header the gateway owns',
    text: spec`
      mcp-server "tracker" url="https://tracker.example.com/mcp" {
          auth bearer env="TOKEN"
          header "Authorization" "Bearer x"
      }
    `,
    errors: [
      {
        code: 'SPEC_HEADER',
        line: 4,
        column: 5,
        says: 'mcp-server tracker: header Authorization: Authorization carries the upstream credential',
      },
    ],
  },
  {
    name: 'refuses an env child with both a value and from-env',
    text: spec`
      mcp-server "handbook" {
          command "node" "server.js"
          env "TOKEN" "x" from-env="HANDBOOK_TOKEN"
      }
    `,
    errors: [
      {
        code: 'SPEC_VALUE_TYPE',
        line: 4,
        column: 21,
        says: 'mcp-server handbook: env TOKEN: give a value or from-env=, not both',
      },
    ],
  },
  {
    name: 'refuses a NUL in a stdio command, naming the program or the argument that holds it',
    text: spec`
      mcp-server "handbook" {
          command "node\u{0}" "server.js" "--dir=a\u{0}b"
      }
    `,
    errors: [
      {
        code: 'SPEC_MCP_COMMAND',
        line: 3,
        column: 13,
        says: 'mcp-server handbook: command: the program holds a NUL character (\\u0000), which no process can be started with',
      },
      {
        code: 'SPEC_MCP_COMMAND',
        line: 3,
        column: 37,
        says: 'mcp-server handbook: command: argument 2 holds a NUL character',
      },
    ],
  },
  {
    name: 'refuses a NUL in an env value, naming the variable',
    text: spec`
      mcp-server "handbook" {
          command "node" "server.js"
          env "DATA_DIR" "/srv\u{0}/data"
      }
    `,
    errors: [
      {
        code: 'SPEC_MCP_COMMAND',
        line: 4,
        column: 20,
        says: 'mcp-server handbook: env DATA_DIR: the value holds a NUL character (\\u0000), which no process can be started with',
      },
    ],
  },
  {
    name: 'refuses an env name with a NUL or an equals sign, quoting it escaped',
    text: spec`
      mcp-server "handbook" {
          command "node" "server.js"
          env "DATA\u{0}DIR" "/srv"
          env "A=B" "c"
      }
    `,
    errors: [
      {
        code: 'SPEC_VALUE_TYPE',
        line: 4,
        column: 9,
        says: 'mcp-server handbook: env: "DATA\\u0000DIR" is not a variable name',
      },
      {
        code: 'SPEC_VALUE_TYPE',
        line: 5,
        column: 9,
        says: 'mcp-server handbook: env: "A=B" is not a variable name',
      },
    ],
  },
  {
    name: 'refuses an unknown mcp-server protocol',
    text: spec`
      mcp-server "handbook" {
          command "node" "server.js"
          protocol "2024-11-05"
      }
    `,
    errors: [
      {
        code: 'SPEC_VALUE_TYPE',
        line: 4,
        column: 14,
        says: 'mcp-server handbook: protocol "2024-11-05" is not one of auto, 2026-07-28, 2025-11-25',
      },
    ],
  },
  {
    name: 'refuses a tool grant naming no declared mcp-server, with the likely one',
    text: spec`
      mcp-server "tracker" url="https://tracker.example.com/mcp"
      can search issues {
          describe "d"
          tool "trakcer" "search_issues"
      }
    `,
    errors: [
      {
        code: 'SPEC_UNKNOWN_MCP_SERVER',
        line: 5,
        column: 10,
        says: 'grant search_issues: no mcp-server is named "trakcer"; did you mean "tracker"? (declared: tracker)',
      },
    ],
  },
  {
    name: 'refuses sign-in without a token key, and a provider issuer that is not https',
    text: http`
      access {
          sign-in issuer="http://login.example.com" client-id-env="CID" client-secret-env="CS"
      }
      can list issues {
          describe "d"
          path "/issues"
      }
    `,
    errors: [
      {
        code: 'SPEC_SIGN_IN',
        line: 4,
        column: 5,
        says: 'it needs access token-key-env="<VARIABLE>"',
      },
      {
        code: 'SPEC_SIGN_IN',
        line: 4,
        column: 13,
        says: 'sign-in issuer "http://login.example.com" must be an https URL',
      },
    ],
  },
  {
    name: 'refuses a toolset name that is no URL segment, a name taken twice, and a toolset without members',
    text: http`
      can list issues {
          describe "d"
          path "/issues"
      }
      toolset "Triage" {
          tools "list_issues"
      }
      toolset "t" {
          tools "list_issues"
      }
      toolset "t" {
      }
    `,
    errors: [
      {
        code: 'SPEC_TOOLSET_NAME',
        line: 7,
        column: 9,
        says: 'toolset Triage: toolset name "Triage" must match ^[a-z][a-z0-9-]{0,63}$',
      },
      {
        code: 'SPEC_MISSING',
        line: 13,
        column: 1,
        says: 'toolset t: a toolset needs members',
      },
      {
        code: 'SPEC_DUPLICATE_TOOLSET',
        line: 13,
        column: 9,
        says: 'toolset t: toolset name t is already taken by the toolset at line 10',
      },
    ],
  },
  {
    name: 'refuses a toolset member the spec does not have, with the likely one, and a glob matching no tool',
    text: http`
      can list issues {
          describe "d"
          path "/issues"
      }
      resource "docs://hours" text="9-5"
      prompt "triage" {
          message "user" "x"
      }
      toolset "t" {
          tools "list_isues" "write_*"
          resources "docs://hour"
          prompts "triag"
      }
    `,
    errors: [
      {
        code: 'SPEC_TOOLSET_MEMBER',
        line: 12,
        column: 11,
        says: 'toolset t: no tool "list_isues" in this spec (did you mean "list_issues"?)',
      },
      {
        code: 'SPEC_TOOLSET_MEMBER',
        line: 12,
        column: 24,
        says: 'toolset t: "write_*" matches no tool of this spec',
      },
      {
        code: 'SPEC_TOOLSET_MEMBER',
        line: 13,
        column: 15,
        says: 'toolset t: no resource or template "docs://hour" in this spec (did you mean "docs://hours"?)',
      },
      {
        code: 'SPEC_TOOLSET_MEMBER',
        line: 14,
        column: 13,
        says: 'toolset t: no prompt "triag" in this spec (did you mean "triage"?)',
      },
    ],
  },
  {
    name: 'refuses a tool grant that also has a path',
    text: http`
      mcp-server "tracker" url="https://tracker.example.com/mcp"
      can search issues {
          path "/search"
          tool "tracker" "search_issues"
      }
    `,
    errors: [
      {
        code: 'SPEC_GRANT_KIND',
        line: 6,
        column: 5,
        says: 'grant search_issues: a grant has either a path (HTTP) or an upstream tool (MCP), not both',
      },
    ],
  },
  {
    name: 'refuses a query block in an MCP grant',
    text: spec`
      mcp-server "tracker" url="https://tracker.example.com/mcp"
      can search issues {
          tool "tracker" "search_issues"
          query {
              q "string"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_GRANT_KIND',
        line: 5,
        column: 5,
        says: 'grant search_issues: `query` belongs to HTTP grants; this grant is MCP',
      },
    ],
  },
  {
    name: 'refuses set body in an MCP grant and set arg in an HTTP grant',
    text: http`
      mcp-server "tracker" url="https://tracker.example.com/mcp"
      can search issues {
          tool "tracker" "search_issues"
          set {
              body "owner" "acme"
          }
      }
      can list issues {
          path "/issues"
          set {
              arg "owner" "acme"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_GRANT_KIND',
        line: 7,
        column: 9,
        says: 'grant search_issues: set body owner: `set body` belongs to HTTP grants; this grant is MCP',
      },
      {
        code: 'SPEC_GRANT_KIND',
        line: 13,
        column: 9,
        says: 'grant list_issues: set arg owner: `set arg` belongs to MCP grants; this grant is HTTP',
      },
    ],
  },
  {
    name: 'refuses a pinned argument path that a declared argument takes',
    text: spec`
      mcp-server "tracker" url="https://tracker.example.com/mcp"
      can search issues {
          tool "tracker" "search_issues"
          args {
              limit "integer" as="perPage"
          }
          set {
              arg "perPage" 10
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_ARGUMENT_COLLISION',
        line: 9,
        column: 9,
        says: 'grant search_issues: set arg perPage: argument path "perPage" overlaps the caller\'s field at "perPage"',
      },
    ],
  },
  {
    name: 'refuses two arguments of an MCP grant sent under one upstream name',
    text: spec`
      mcp-server "tracker" url="https://tracker.example.com/mcp"
      can search issues {
          tool "tracker" "search_issues"
          args {
              limit "integer" as="perPage"
              per_page "integer" as="perPage"
          }
      }
    `,
    errors: [
      {
        code: 'SPEC_DUPLICATE',
        line: 7,
        column: 9,
        says: 'grant search_issues: argument per_page: upstream argument name "perPage" is used twice',
      },
    ],
  },
  // ---- confirm and approve (issue 29) -------------------------------------------------
  {
    name: 'refuses a confirm or approve placeholder that names no declared argument, with the likely one',
    text: http`
      access {
          api-key env="K" scopes="payments:approve"
      }
      can create refund {
          path "/payments/{payment}/refunds" { payment "string" }
          body {
              amount "integer" min=1
          }
          confirm "Refund {ammount} cents on {payment}? {who}"
          approve "Refund {amount} on {paymnt}" by="payments:approve"
      }
    `,
    errors: [
      {
        code: 'SPEC_PLACEHOLDER',
        line: 11,
        column: 13,
        says: 'grant create_refund: confirm: placeholder {ammount} is not a declared argument; did you mean {amount}? (declared: payment, amount)',
      },
      {
        code: 'SPEC_PLACEHOLDER',
        line: 11,
        column: 13,
        says: 'grant create_refund: confirm: placeholder {who} is not a declared argument (declared: payment, amount)',
      },
      {
        code: 'SPEC_PLACEHOLDER',
        line: 12,
        column: 13,
        says: 'grant create_refund: approve: placeholder {paymnt} is not a declared argument; did you mean {payment}?',
      },
    ],
  },
  {
    name: 'refuses a placeholder in a sql grant that names no param',
    text: sql`
      can delete order {
          sql "DELETE FROM orders WHERE id = $1"
          params {
              id "integer"
          }
          confirm "Delete order {order}?"
      }
    `,
    errors: [
      {
        code: 'SPEC_PLACEHOLDER',
        line: 8,
        column: 13,
        says: 'grant delete_order: confirm: placeholder {order} is not a declared argument (declared: id)',
      },
    ],
  },
  {
    name: 'refuses an empty confirm or approve message, and either given twice',
    text: http`
      access {
          api-key env="K" scopes="s"
      }
      can delete order {
          path "/orders/{id}" { id "integer" }
          confirm " "
          confirm "Delete order {id}?"
          approve "" by="s"
          approve "Delete order {id}" by="s"
      }
    `,
    errors: [
      {
        code: 'SPEC_MISSING',
        line: 8,
        column: 13,
        says: 'grant delete_order: `confirm` needs a message saying what is about to happen; this one is empty',
      },
      {
        code: 'SPEC_DUPLICATE',
        line: 9,
        column: 5,
        says: 'grant delete_order: `confirm` is given twice (first at line 8)',
      },
      {
        code: 'SPEC_MISSING',
        line: 10,
        column: 13,
        says: 'grant delete_order: `approve` needs a message',
      },
      {
        code: 'SPEC_DUPLICATE',
        line: 11,
        column: 5,
        says: 'grant delete_order: `approve` is given twice (first at line 10)',
      },
    ],
  },
  {
    name: 'refuses a confirm clients= other than "eliciting", and a clients= that is no string',
    text: http`
      can delete order {
          path "/orders/{id}" { id "integer" }
          confirm "Delete order {id}?" clients="all"
      }
      can delete invoice {
          path "/invoices/{id}" { id "integer" }
          confirm "Delete invoice {id}?" clients=#true
      }
    `,
    errors: [
      {
        code: 'SPEC_VALUE_TYPE',
        line: 5,
        column: 34,
        says: 'grant delete_order: clients="all" is not known; the one value is "eliciting" (only clients that declare elicitation call this tool)',
      },
      {
        code: 'SPEC_VALUE_TYPE',
        line: 9,
        column: 36,
        says: 'grant delete_invoice: clients= must be a string, got boolean',
      },
    ],
  },
  {
    name: 'refuses approve without an access block: the approver could not be told apart from the caller',
    text: http`
      can delete order {
          path "/orders/{id}" { id "integer" }
          approve "Delete order {id}" by="orders:approve"
      }
    `,
    errors: [
      {
        code: 'SPEC_MISSING',
        line: 5,
        column: 5,
        says: 'grant delete_order: approve: approve needs an `access` block: without caller identities the approver cannot be told apart from the caller',
      },
    ],
  },
  {
    name: 'refuses approve without by=, with a by= of several scopes, and an expiry that is no duration or out of bounds',
    text: http`
      access {
          api-key env="K" scopes="s"
      }
      can delete order {
          path "/orders/{id}" { id "integer" }
          approve "Delete order {id}"
      }
      can delete invoice {
          path "/invoices/{id}" { id "integer" }
          approve "Delete invoice {id}" by="s t" expires="soon"
      }
      can delete payment {
          path "/payments/{id}" { id "integer" }
          approve "Delete payment {id}" by="s" expires="59s"
      }
      can delete refund {
          path "/refunds/{id}" { id "integer" }
          approve "Delete refund {id}" by="" expires="169h"
      }
    `,
    errors: [
      {
        code: 'SPEC_MISSING',
        line: 8,
        column: 5,
        says: 'grant delete_order: `approve` needs by=',
      },
      {
        code: 'SPEC_VALUE_TYPE',
        line: 12,
        column: 35,
        says: 'grant delete_invoice: by="s t" must be one scope name, without spaces',
      },
      {
        code: 'SPEC_DURATION',
        line: 12,
        column: 44,
        says: 'grant delete_invoice: expires="soon" is not a duration like 15m, 1h or 24h',
      },
      {
        code: 'SPEC_VALUE_TYPE',
        line: 16,
        column: 42,
        says: 'grant delete_payment: expires="59s" must be at least 1m and at most 168h (7 days)',
      },
      {
        code: 'SPEC_MISSING',
        line: 20,
        column: 34,
        says: 'grant delete_refund: `approve` needs by="<scope>", a scope name',
      },
      {
        code: 'SPEC_VALUE_TYPE',
        line: 20,
        column: 40,
        says: 'grant delete_refund: expires="169h" must be at least 1m and at most 168h (7 days)',
      },
    ],
  },
  {
    name: 'refuses an upstream name outside the pattern, one taken twice, and a base-url not http(s)',
    text: spec`
      upstream "GitHub" base-url="https://api.github.com"
      upstream "gh" base-url="https://api.github.com"
      upstream "gh" base-url="ftp://files.example.com"
    `,
    errors: [
      {
        code: 'SPEC_UPSTREAM_NAME',
        line: 2,
        column: 10,
        says: 'upstream GitHub: upstream name "GitHub" must match ^[a-z][a-z0-9-]{0,31}$',
      },
      {
        code: 'SPEC_DUPLICATE',
        line: 4,
        column: 10,
        says: 'upstream gh: upstream name gh is already taken by the upstream at line 3',
      },
    ],
  },
  {
    name: 'refuses a grant naming an undeclared upstream or database, with the likely one',
    text: spec`
      upstream "github" base-url="https://api.github.com"
      database "orders" env="ORDERS_DB_URL"
      can list issues {
          describe "d"
          upstream "githb"
          path "/issues"
      }
      can query orders {
          describe "d"
          database "order"
          sql "select 1"
      }
    `,
    errors: [
      {
        code: 'SPEC_UNKNOWN_UPSTREAM',
        line: 6,
        column: 14,
        says: 'grant list_issues: no upstream is named "githb"; did you mean "github"? (declared: github)',
      },
      {
        code: 'SPEC_UNKNOWN_UPSTREAM',
        line: 11,
        column: 14,
        says: 'grant query_orders: no database is named "order"; did you mean "orders"? (declared: orders)',
      },
    ],
  },
  {
    name: 'refuses a grant naming no upstream or database where the spec has only named ones, listing them',
    text: spec`
      upstream "github" base-url="https://api.github.com"
      upstream "jira" base-url="https://jira.example.com"
      database "orders" env="ORDERS_DB_URL"
      can list issues {
          describe "d"
          path "/issues"
      }
      can query orders {
          describe "d"
          sql "select 1"
      }
    `,
    errors: [
      {
        code: 'SPEC_NO_BASE_URL',
        line: 7,
        column: 10,
        says: 'grant list_issues: the spec has no default upstream (a top-level base-url): name one with `upstream "<name>"` (declared: github, jira)',
      },
      {
        code: 'SPEC_NO_DATABASE',
        line: 11,
        column: 9,
        says: 'grant query_orders: the spec has no default database (one without a name): name one with `database "<name>"` (declared: orders)',
      },
    ],
  },
  {
    name: 'refuses an upstream named in a sql grant and a database named in an HTTP grant',
    text: spec`
      base-url "https://api.example.com"
      database env="DATABASE_URL"
      upstream "github" base-url="https://api.github.com"
      database "orders" env="ORDERS_DB_URL"
      can query orders {
          describe "d"
          upstream "github"
          sql "select 1"
      }
      can list issues {
          describe "d"
          database "orders"
          path "/issues"
      }
    `,
    errors: [
      {
        code: 'SPEC_GRANT_KIND',
        line: 8,
        column: 5,
        says: 'grant query_orders: `upstream` belongs to HTTP grants; this grant is sql',
      },
      {
        code: 'SPEC_GRANT_KIND',
        line: 13,
        column: 5,
        says: 'grant list_issues: `database` belongs to sql grants; this grant is HTTP',
      },
    ],
  },
  {
    name: 'refuses a second default database, a named one without env=, and database names taken twice or misspelt',
    text: spec`
      database env="DATABASE_URL"
      database embedded
      database "orders" env="ORDERS_DB_URL"
      database "orders" env="OTHER_DB_URL"
      database "Sales" env="SALES_DB_URL"
      database "audit" seed="seed.sql"
    `,
    errors: [
      {
        code: 'SPEC_DUPLICATE',
        line: 3,
        column: 1,
        says: 'database: the default database (without a name) may appear once (first at line 2)',
      },
      {
        code: 'SPEC_DUPLICATE',
        line: 5,
        column: 10,
        says: 'database orders: database name orders is already taken by the database at line 4',
      },
      {
        code: 'SPEC_UPSTREAM_NAME',
        line: 6,
        column: 10,
        says: 'database Sales: database name "Sales" must match',
      },
      { code: 'SPEC_MISSING', line: 7, column: 1, says: '`database` needs env=' },
      {
        code: 'SPEC_UNKNOWN_PROPERTY',
        line: 7,
        column: 18,
        says: '`database` has no property seed=',
      },
    ],
  },
  {
    name: 'refuses auth user in a spec whose access names no token-key-env to encrypt the tokens with',
    text: spec`
      access { api-key env="K" }
      upstream "jira" base-url="https://jira.example.com" {
          auth user provider="atlassian"
      }
      oauth-provider "atlassian" {
          authorize-url "https://auth.atlassian.com/authorize"
          token-url "https://auth.atlassian.com/oauth/token"
          client-id-env "ATL_ID"
          client-secret-env "ATL_SECRET"
      }
    `,
    errors: [
      {
        code: 'SPEC_UPSTREAM_IDENTITY',
        line: 4,
        column: 5,
        says: 'upstream jira: auth user: it keeps each caller’s tokens encrypted with the key in `access token-key-env="<VARIABLE>"`',
      },
    ],
  },
  {
    name: 'refuses auth user naming no provider, and auth user and exchange without access',
    text: spec`
      upstream "jira" base-url="https://jira.example.com" {
          auth user provider="atlasian"
      }
      upstream "crm" base-url="https://crm.example.com" {
          auth exchange token-url="https://idp.example.com/token" client-id-env="CID" client-secret-env="CSECRET"
      }
      oauth-provider "atlassian" {
          authorize-url "https://auth.atlassian.com/authorize"
          token-url "https://auth.atlassian.com/oauth/token"
          client-id-env "ATL_ID"
          client-secret-env "ATL_SECRET"
      }
    `,
    errors: [
      {
        code: 'SPEC_UPSTREAM_IDENTITY',
        line: 3,
        column: 5,
        says: 'upstream jira: auth user: it calls as each caller’s connected account, so callers must be known',
      },
      {
        code: 'SPEC_UPSTREAM_IDENTITY',
        line: 3,
        column: 15,
        says: 'upstream jira: auth user: no oauth-provider is named "atlasian"; did you mean "atlassian"? (declared: atlassian)',
      },
      {
        code: 'SPEC_UPSTREAM_IDENTITY',
        line: 6,
        column: 5,
        says: 'upstream crm: auth exchange: it exchanges the caller’s token, so callers must present one',
      },
    ],
  },
  {
    name: 'refuses auth user where access has no token-key-env to seal the connected accounts with',
    text: spec`
      access {
          api-key env="API_KEYS"
      }
      mcp-server "notes" url="https://notes.example.com/mcp" {
          auth user provider="wiki"
      }
      oauth-provider "wiki" {
          authorize-url "https://wiki.example.com/authorize"
          token-url "https://wiki.example.com/token"
          client-id-env "WIKI_ID"
          client-secret-env "WIKI_SECRET"
      }
    `,
    errors: [
      {
        code: 'SPEC_UPSTREAM_IDENTITY',
        line: 6,
        column: 5,
        says: 'mcp-server notes: auth user: it keeps each caller’s tokens encrypted with the key in `access token-key-env="<VARIABLE>"` (at least 32 random bytes, hex or base64): add it to the access block',
      },
    ],
  },
  {
    name: 'refuses token, authorize and revoke URLs that are not https, and a provider missing required children',
    text: spec`
      auth client-credentials token-url="http://idp.example.com/token" client-id-env="CID" client-secret-env="CSECRET"
      mcp-server "tracker" url="https://tracker.example.com/mcp" {
          auth client-credentials token-url="https://u:p@idp.example.com/token" client-id-env="CID" client-secret-env="CSECRET"
      }
      oauth-provider "atlassian" {
          authorize-url "http://auth.atlassian.com/authorize"
          client-id-env "ATL_ID"
          revoke-url "https://auth.atlassian.com/revoke#x"
      }
    `,
    errors: [
      {
        code: 'SPEC_OAUTH_URL',
        line: 2,
        column: 25,
        says: 'auth client-credentials: token-url "http://idp.example.com/token" must be an https URL (http only on localhost, 127.0.0.1 or ::1)',
      },
      {
        code: 'SPEC_OAUTH_URL',
        line: 4,
        column: 29,
        says: 'mcp-server tracker: auth client-credentials: token-url "https://u:p@idp.example.com/token" must not hold credentials',
      },
      {
        code: 'SPEC_MISSING',
        line: 6,
        column: 1,
        says: 'oauth-provider atlassian: `oauth-provider` needs `token-url`',
      },
      {
        code: 'SPEC_MISSING',
        line: 6,
        column: 1,
        says: 'oauth-provider atlassian: `oauth-provider` needs `client-secret-env`',
      },
      {
        code: 'SPEC_OAUTH_URL',
        line: 7,
        column: 19,
        says: 'oauth-provider atlassian: authorize-url "http://auth.atlassian.com/authorize" must be an https URL',
      },
      {
        code: 'SPEC_OAUTH_URL',
        line: 9,
        column: 16,
        says: 'oauth-provider atlassian: revoke-url "https://auth.atlassian.com/revoke#x" must have no fragment',
      },
    ],
  },
  {
    name: 'refuses a proxy with credentials or of another scheme, and tls files that are missing or half a client certificate',
    text: spec`
      upstream "github" base-url="https://api.github.com" {
          proxy "http://user:secret@proxy.internal:3128"
          tls { cert-file "no-such-cert.pem"; }
      }
      mcp-server "tracker" url="https://tracker.example.com/mcp" {
          proxy "socks5://proxy.internal:1080"
          tls { ca-file "no-such-ca.pem"; key-file "no-such-key.pem"; }
      }
    `,
    errors: [
      {
        code: 'SPEC_PROXY',
        line: 3,
        column: 11,
        says: 'upstream github: a proxy URL must not hold credentials (user:password)',
      },
      {
        code: 'SPEC_TLS',
        line: 4,
        column: 21,
        says: 'upstream github: tls: cert-file "no-such-cert.pem" does not exist',
      },
      {
        code: 'SPEC_TLS',
        line: 4,
        column: 21,
        says: 'upstream github: tls: cert-file needs key-file (its private key)',
      },
      {
        code: 'SPEC_PROXY',
        line: 7,
        column: 11,
        says: 'mcp-server tracker: proxy "socks5://proxy.internal:1080": scheme socks5: is not http or https',
      },
      {
        code: 'SPEC_TLS',
        line: 8,
        column: 19,
        says: 'mcp-server tracker: tls: ca-file "no-such-ca.pem" does not exist',
      },
      {
        code: 'SPEC_TLS',
        line: 8,
        column: 46,
        says: 'mcp-server tracker: tls: key-file "no-such-key.pem" does not exist',
      },
      {
        code: 'SPEC_TLS',
        line: 8,
        column: 46,
        says: 'mcp-server tracker: tls: key-file needs cert-file (its certificate)',
      },
    ],
  },
  {
    name: 'refuses proxy and tls on a stdio mcp-server',
    text: spec`
      mcp-server "handbook" {
          command "node" "server.js"
          proxy "http://proxy.internal:3128"
      }
    `,
    errors: [
      {
        code: 'SPEC_MCP_TRANSPORT',
        line: 4,
        column: 5,
        says: 'mcp-server handbook: `proxy` belongs to a Streamable HTTP server (url=); this one has a command',
      },
    ],
  },
];

// Near misses of the rows above that the manual allows: they must load without errors.
const ALLOWED: readonly { name: string; text: string }[] = [
  {
    name: 'allows path parameters beside literal text in one segment, and array path parameters',
    text: http`
      can get item {
          path "/items/{id}.json/jobs/{name}:cancel/docket.{format}/{a}-{b}/{base}...{head}/{ids}" {
              ids "integer[]" max-items=50
          }
      }
    `,
  },
  {
    name: 'allows literal segments that only hold dots, escapes or ";" beside other text',
    text: spec`
      base-url "https://api.example.com/v1.2/a..b/%41pi;v=2"
      can get report {
          path "/files/report%2ejson/.../..x/x..;a/items;v=2/%7Euser/{id}"
      }
    `,
  },
  {
    name: 'allows one trailing semicolon after the statement',
    text: sql`
      can query orders {
          sql "SELECT id FROM orders WHERE customer_id = $1;"
          params {
              customer_id "integer"
          }
      }
    `,
  },
  {
    name: 'allows a trailing semicolon followed by a comment',
    text: sql`
      can query orders {
          sql "SELECT id FROM orders;  -- newest first"
      }
    `,
  },
  {
    name: 'allows a placeholder used twice, and ignores $n in comments, quotes and dollar quotes',
    text: sql`
      can query orders {
          sql #"SELECT id, $tag$ $7 $tag$ AS t, "$5" FROM orders WHERE a = $1 OR b = $1 /* $3 */ -- $2"#
          params {
              x "integer"
          }
      }
    `,
  },
  {
    name: 'allows a path template with a trailing slash',
    text: http`
      can list items {
          path "/items/"
      }
    `,
  },
  {
    name: 'allows an unknown verb when method is given',
    text: http`
      can archive issue {
          method "POST"
          path "/issues/{number}/archive"
      }
    `,
  },
  {
    name: 'allows from-claim when access has oauth',
    text: http`
      access {
          oauth issuer="https://idp.example.com" audience="https://t.example.com/mcp" jwks-uri="https://idp.example.com/jwks.json"
      }
      can list issues {
          path "/issues"
          query {
              user "string" from-claim="sub"
          }
      }
    `,
  },
  {
    name: 'allows arg= on a required nested string',
    text: http`
      can update file {
          path "/files"
          body {
              commit "object" {
                  message "string" required=#true arg="commit_message"
              }
          }
      }
    `,
  },
  {
    name: 'allows fields named like built-in object members',
    text: http`
      can list things {
          describe "d"
          path "/things/{constructor}"
          query {
              toString "string"
              valueOf "integer" default=3
              hasOwnProperty "boolean"
          }
      }
    `,
  },
  {
    name: 'allows MCP grants with projections, pins beside declared arguments and child env from ours',
    text: spec`
      mcp-server "tracker" url="https://tracker.example.com/mcp" {
          auth header "X-Api-Key" env="TRACKER_KEY"
          header "X-Team" "triage"
          protocol "2026-07-28"
      }
      mcp-server "handbook" {
          command "node" "server.js" "--stdio"
          env "LOG_LEVEL" "warn"
          env "API_TOKEN" from-env="HANDBOOK_TOKEN"
          timeout "5s"
      }
      can create comment {
          describe "d"
          tool "tracker" "add_comment"
          args {
              comment "object" required=#true {
                  body "string" required=#true arg="body"
              }
          }
          set {
              arg "comment.format" "markdown"
              arg "owner" "acme"
          }
          timeout "2s"
      }
      can read page {
          describe "d"
          tool "handbook" "read_text_file"
      }
    `,
  },
  {
    name: 'allows pick paths through arrays, nested arrays and any field name',
    text: http`
      can list issues {
          describe "d"
          path "/issues"
          pick "number" "labels[].name" "grid[][].v" "user.login" "user" "odd name-é" "__proto__"
      }
    `,
  },
];

describe('bad specs are refused with the right code, at the right token', () => {
  it.each(BAD)('$name', ({ text, errors: want }) => {
    const { compiled, errors } = errorsOf(text);
    expect(errors).toEqual(expected(want));
    expect(compiled).toBeUndefined();
  });

  it('covers every error code at least once', () => {
    const covered = new Set(BAD.flatMap((b) => b.errors.map((e) => e.code)));
    expect([...covered].sort()).toEqual(Object.keys(SPEC_ERROR_CODES).sort());
  });
});

describe('near misses load without errors', () => {
  it.each(ALLOWED)('$name', ({ text }) => {
    const { compiled, errors } = errorsOf(text);
    expect(errors).toEqual([]);
    expect(compiled).toBeDefined();
  });
});

describe('a spec with several errors', () => {
  const text = spec`
    endpoint "https://api.example.com"
    base-url "https://api.example.com"
    header "Host" "api.example.com"
    can list issues {
        path "/issues"
        query {
            per_page "int"
        }
        rate-limit "10/min"
    }
    can archive issue {
        path "/issues/{number}/archive"
    }
  `;

  it('reports every independent error, not just the first, sorted by line', () => {
    const { compiled, errors } = errorsOf(text);
    expect(compiled).toBeUndefined();
    expect(errors).toEqual(
      expected([
        { code: 'SPEC_UNKNOWN_NODE', line: 2, column: 1, says: '`endpoint`' },
        { code: 'SPEC_HEADER', line: 4, column: 1, says: 'header Host' },
        { code: 'SPEC_UNKNOWN_TYPE', line: 8, column: 18, says: 'query field per_page' },
        { code: 'SPEC_RATE_LIMIT', line: 10, column: 16, says: 'rate-limit "10/min"' },
        { code: 'SPEC_UNKNOWN_VERB', line: 12, column: 5, says: 'grant archive_issue' },
      ]),
    );
    const positions = errors.map((e) => e.line * 1000 + e.column);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });
});

describe('the manual lists every error code', () => {
  const manual = readFileSync(new URL('../../docs/spec-language.md', import.meta.url), 'utf8');
  const loadErrors = manual.slice(manual.indexOf('## Load errors'));

  it.each(Object.keys(SPEC_ERROR_CODES))('documents %s in "Load errors"', (code) => {
    expect(loadErrors).toContain(`| \`${code}\` |`);
  });
});
