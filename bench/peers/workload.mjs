// The two tools every subject serves, described once and rendered into each subject's
// own configuration language: a parameterized SELECT returning 10 rows, and an HTTP GET
// of a 1 KB JSON document from a loopback upstream.

export const SQL_TOOL = {
  name: 'query_items',
  description: 'Ten items, in id order, from a given id on.',
  param: { name: 'from_id', type: 'integer', description: 'The first item id.' },
  statement: (schema) =>
    `SELECT id, name, price_cents FROM ${schema}.bench_items WHERE id >= $1 ORDER BY id LIMIT 10`,
  args: { from_id: 42 },
};

export const HTTP_TOOL = {
  name: 'get_item',
  description: 'One item by id.',
  param: { name: 'id', type: 'integer', description: 'The item id.' },
  path: '/items/{id}',
  args: { id: 42 },
};

/** Pool size every subject is given for Postgres. */
export const POOL = 10;

/**
 * The tools of a spec of `count` tools: the two above for count 2; for larger counts,
 * numbered copies of both kinds, alternating (start-up cost grows with tools, not calls).
 */
export function toolsOf(count) {
  if (count === 2) return [SQL_TOOL, HTTP_TOOL];
  return Array.from({ length: count }, (_, i) => {
    const base = i % 2 === 0 ? SQL_TOOL : HTTP_TOOL;
    return { ...base, name: `${base.name}_${i}` };
  });
}

const kdlString = (s) => JSON.stringify(s);

/** mcp-beaver's spec: `can query items` is tool query_items, `can get item` get_item. */
export function toKdl(tools, { schema, upstreamUrl }) {
  const out = [
    'wrap "bench-peers" version="1.0.0" {',
    '    describe "The tools of the peer benchmark."',
    '}',
    `base-url ${kdlString(upstreamUrl)}`,
    `database env="DATABASE_URL" pool=${POOL}`,
  ];
  for (const t of tools) {
    const [verb, ...rest] = t.name.split('_');
    const resource = rest.join('-');
    out.push(`can ${verb} ${resource} {`, `    describe ${kdlString(t.description)}`);
    if (t.statement) {
      out.push(
        `    sql ${kdlString(t.statement(schema))}`,
        '    params {',
        `        ${t.param.name} "integer" required=#true min=1 describe=${kdlString(t.param.description)}`,
        '    }',
      );
    } else {
      out.push(
        `    path ${kdlString(t.path)} {`,
        `        ${t.param.name} "integer" min=1 describe=${kdlString(t.param.description)}`,
        '    }',
      );
    }
    out.push('}');
  }
  return `${out.join('\n')}\n`;
}

/** Google MCP Toolbox's flat YAML (JSON is YAML, so no YAML writer is needed). */
export function toToolboxYaml(tools, { schema, upstreamUrl, pgPort = 5432 }) {
  const docs = [
    {
      kind: 'source',
      name: 'pg',
      type: 'postgres',
      host: '127.0.0.1',
      port: String(pgPort),
      database: 'test',
      user: 'postgres',
      // Trust auth accepts any password; Toolbox requires the field.
      password: 'bench',
      queryParams: { pool_max_conns: String(POOL) },
    },
    {
      kind: 'source',
      name: 'upstream',
      type: 'http',
      baseUrl: upstreamUrl,
      timeout: '10s',
      // Toolbox refuses loopback upstreams unless they are allowed explicitly.
      allowedIpRanges: ['127.0.0.1/32'],
    },
  ];
  for (const t of tools) {
    const param = { name: t.param.name, type: 'integer', description: t.param.description };
    docs.push(
      t.statement
        ? {
            kind: 'tool',
            name: t.name,
            type: 'postgres-sql',
            source: 'pg',
            description: t.description,
            statement: t.statement(schema),
            parameters: [param],
          }
        : {
            kind: 'tool',
            name: t.name,
            type: 'http',
            source: 'upstream',
            method: 'GET',
            path: t.path.replace(`{${t.param.name}}`, `{{.${t.param.name}}}`),
            description: t.description,
            pathParams: [param],
          },
    );
  }
  return docs.map((d) => JSON.stringify(d, null, 2)).join('\n---\n') + '\n';
}

/** DBHub's TOML: sql tools only (it has no HTTP tool type). */
export function toDbhubToml(tools, { schema, databaseUrl }) {
  const out = ['[[sources]]', 'id = "pg"', `dsn = ${JSON.stringify(databaseUrl)}`, ''];
  for (const t of tools.filter((x) => x.statement)) {
    out.push(
      '[[tools]]',
      `name = ${JSON.stringify(t.name)}`,
      'source = "pg"',
      `description = ${JSON.stringify(t.description)}`,
      `statement = ${JSON.stringify(t.statement(schema))}`,
      `parameters = [{ name = ${JSON.stringify(t.param.name)}, type = "integer", description = ${JSON.stringify(t.param.description)}, required = true }]`,
      '',
    );
  }
  return out.join('\n');
}
