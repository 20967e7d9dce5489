/**
 * A test that is skipped says why, on stderr, in every run: a reader of the summary's
 * "skipped" count finds the reason without opening the file.
 * Use: `it.skipIf(skipBecause(!hasCompileCache, 'Node 20 has no compile cache'))(...)`.
 */
export function skipBecause(skip: boolean, reason: string): boolean {
  if (skip) process.stderr.write(`skipped: ${reason}\n`);
  return skip;
}
