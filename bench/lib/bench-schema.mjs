// The benchmarks' table: a schema of their own on the machine's Postgres, seeded with
// 1,000 items and dropped at the end, so a run never touches another run's data.

/**
 * Creates `<prefix>_<pid>` with bench_items(id, name, price_cents) on `baseUrl`;
 * returns its name, a URL whose sessions see it first (search_path), and drop().
 */
export async function createBenchSchema(baseUrl, prefix) {
  const { default: pg } = await import('pg');
  const schema = `${prefix}_${process.pid}`;
  // A short-lived client each time: other test suites may restart Postgres meanwhile.
  const run = async (statements) => {
    const client = new pg.Client({ connectionString: baseUrl, connectionTimeoutMillis: 5000 });
    client.on('error', () => {});
    await client.connect();
    try {
      for (const q of statements) await client.query(q);
    } finally {
      await client.end().catch(() => {});
    }
  };
  await run([
    `CREATE SCHEMA ${schema}`,
    `CREATE TABLE ${schema}.bench_items (id integer PRIMARY KEY, name text NOT NULL, price_cents integer NOT NULL)`,
    `INSERT INTO ${schema}.bench_items SELECT g, 'item-' || g, g * 100 FROM generate_series(1, 1000) g`,
    `ANALYZE ${schema}.bench_items`,
  ]);
  const sep = baseUrl.includes('?') ? '&' : '?';
  const url = `${baseUrl}${sep}options=-c%20search_path%3D${schema}`;
  return { url, schema, drop: () => run([`DROP SCHEMA IF EXISTS ${schema} CASCADE`]) };
}
