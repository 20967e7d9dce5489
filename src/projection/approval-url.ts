/**
 * Where a person sees one approval: the catalog page's approvals view of it
 * (docs/spec-language.md, "Confirmation and approval"). Both surfaces put this URL in
 * their answers; the catalog projection serves it.
 */
export const APPROVALS_PAGE_PATH = '/approvals';

/** The page of approval `id` on the gateway reached at `base` (no trailing slash). */
export function approvalPageUrl(base: string, id: string): string {
  return `${base}${APPROVALS_PAGE_PATH}/${encodeURIComponent(id)}`;
}
