/**
 * `mcp-beaver import` in the single executable, in place of src/cli/run-import.ts: the
 * OpenAPI parser and the Swagger 2.0 converter load their own files from disk at run
 * time, which only the npm package has; `import mcp` goes with it (run-import.ts leads to
 * both), so each is told where it is.
 */
export async function runImport(argv: string[]): Promise<number> {
  const how =
    argv[0] === 'mcp'
      ? '`npx mcp-beaver import mcp <url>` (or `import mcp -- <command>`)'
      : '`npx mcp-beaver import openapi <file>`';
  process.stderr.write(
    `mcp-beaver import: not available in the single executable (import openapi and import mcp come with the npm package); run ${how} instead\n`,
  );
  return 1;
}
