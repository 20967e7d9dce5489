/** Arguments left out of a grant: each is one `… left out: …` comment in its block. */
import type { DraftBlock, DraftField } from '../openapi/draft-types.js';

export function countLeftOut(args: DraftBlock): number {
  const count = (notes: readonly string[] | undefined): number =>
    (notes ?? []).filter((n) => n.includes('left out')).length;
  const fields = (fs: readonly DraftField[]): number =>
    fs.reduce((a, f) => a + count(f.notes) + fields(f.fields ?? []), 0);
  return count(args.notes) + fields(args.fields);
}
