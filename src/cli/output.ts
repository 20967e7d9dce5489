/** Turning failures into one readable line for a terminal. */
export function readableError(err: unknown): string {
  if (
    err &&
    typeof err === 'object' &&
    'code' in err &&
    (err as { code: unknown }).code === 'ENOENT'
  ) {
    return 'no such file';
  }
  return err instanceof Error ? err.message : String(err);
}
