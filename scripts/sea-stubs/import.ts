/**
 * `mcp-beaver import` in the single executable, in place of src/cli/run-import.ts: the
 * OpenAPI parser and the Swagger 2.0 converter load their own files from disk at run
 * time, which only the npm package has.
 */
export async function runImport(): Promise<number> {
  process.stderr.write(
    'mcp-beaver import: not available in the single executable (the OpenAPI parsers come with the npm package); run `npx mcp-beaver import openapi <file>` instead\n',
  );
  return 1;
}
