// The result shape the in-process benches measure: rows like a typical list answer.

/**
 * Rows until their JSON reaches `bytes`; with `echo`, every 50th row (from the 8th)
 * carries `debug: echo(i)`, as an upstream that echoes part of a request would.
 */
export function listRows(bytes, echo) {
  const rows = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const row = {
      id: i,
      title: `Item number ${i} with a short title`,
      state: i % 3 === 0 ? 'closed' : 'open',
      labels: [{ name: 'bug', color: 'd73a4a' }, { name: 'p2' }],
      body: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(2),
      created_at: '2026-01-02T03:04:05Z',
      ...(echo && i % 50 === 7 && { debug: echo(i) }),
    };
    size += JSON.stringify(row).length + 1;
    rows.push(row);
  }
  return rows;
}
