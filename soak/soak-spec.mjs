// The soak's spec: two HTTP grants on the fault upstream (soak/fault-upstream.mjs) and,
// with Postgres, a sql read and a sql write whose every row echoes the caller's id.

/** The spec text; `grantTimeout` is every HTTP grant's deadline (`300ms`). */
export function soakSpec(upstreamUrl, withSql, grantTimeout) {
  return `
wrap "soak" version="1.0.0" {
    describe "The reliability soak: HTTP grants on a fault-injecting upstream, sql grants on Postgres."
}
base-url "${upstreamUrl}/v1"
auth bearer env="SOAK_TOKEN"
timeout "${grantTimeout}"
limits max-bytes=65536
${withSql ? 'database env="DATABASE_URL" pool=10 statement-timeout="2s" checkout-timeout="2s"' : ''}

can get echo {
    describe "Echoes the id; the upstream injects faults."
    path "/echo/{id}"
    query {
        tag "string" max-length=64
    }
}

can create echo {
    describe "Echoes the id from a JSON body; the upstream injects faults."
    path "/echo"
    body {
        id "string" required=#true max-length=64
        n "integer" min=0
        tags "string[]" max-items=8
    }
}
${
  withSql
    ? `
can get row {
    describe "One row, with the caller's id echoed."
    sql "SELECT $1::text AS id, n, label FROM items WHERE n = $2"
    params {
        id "string" required=#true max-length=64
        n "integer" required=#true min=1 max=100
    }
}

can create hit {
    describe "Records one hit (a write); each must land exactly once."
    sql "INSERT INTO hits (tag) VALUES ($1) RETURNING tag"
    params {
        tag "string" required=#true max-length=64
    }
}
`
    : ''
}`;
}

/** The sql grants' tables, seeded into a fresh schema. */
export const SEED_SQL = `
CREATE TABLE items (n integer PRIMARY KEY, label text NOT NULL);
INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 100) g;
CREATE TABLE hits (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, tag text NOT NULL);
`;
