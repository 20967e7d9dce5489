/** Generates a realistic spec of N grants (HTTP and sql mixed) for benchmarks. */
export function generateSpec(grants: number): string {
  const out = [
    'wrap "generated" version="1.0.0" {',
    '    describe "A generated spec for benchmarks."',
    '}',
    'base-url "http://127.0.0.1:9/api"',
    'auth bearer env="BENCH_TOKEN"',
    'header "Accept" "application/json"',
    'database env="DATABASE_URL" pool=4',
    'restrict {',
    '    owner "acme" "acme-labs"',
    '    repo pattern="^[a-z0-9._-]{1,100}$"',
    '}',
  ];
  for (let i = 0; i < grants; i++) {
    if (i % 5 === 4) {
      out.push(
        `can query orders-${i} {`,
        `    describe "Orders of one customer (${i})."`,
        '    sql "SELECT id, total_cents FROM orders WHERE customer_id = $1 AND status = $2 LIMIT $3"',
        '    params {',
        '        customer_id "integer" required=#true min=1',
        '        status "string" default="open" { enum "open" "paid" "cancelled"; }',
        '        limit "integer" default=50 min=1 max=500',
        '    }',
        '}',
      );
    } else if (i % 2 === 0) {
      out.push(
        `can list issues-${i} {`,
        `    describe "List issues of a repository (${i})."`,
        `    path "/repos/{owner}/{repo}/issues-${i}"`,
        '    query {',
        '        state "string" default="open" { enum "open" "closed" "all"; }',
        '        labels "string[]" max-items=10',
        '        per_page "integer" min=1 max=100 default=30',
        '        since "string" format="date-time"',
        '        search "string" as="q"',
        '        exclusive "since" "search"',
        '    }',
        '}',
      );
    } else {
      out.push(
        `can update file-${i} {`,
        `    describe "Create or replace a file (${i})."`,
        '    method "PUT"',
        `    path "/repos/{owner}/{repo}/contents-${i}/{name}"`,
        '    body {',
        '        content "string" required=#true',
        '        commit "object" { message "string" required=#true arg="commit_message"; }',
        '        branch "string" pattern="^[A-Za-z0-9/._-]{1,200}$"',
        '        extra "raw" kind="object"',
        '    }',
        '    set { body "committer.name" "mcp-beaver"; }',
        '}',
      );
    }
  }
  return `${out.join('\n')}\n`;
}
