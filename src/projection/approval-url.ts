/**
 * Where a person sees one approval: the catalog page's approvals view of it
 * (docs/spec-language.md, "Confirmation and approval"); and where the caller's own user
 * answers one confirmation, the catalog page's confirmation view (`/confirm/<id>`, "Asking
 * the person in every era"). The surfaces put these URLs in their answers; the catalog
 * projection serves them.
 */
export const APPROVALS_PAGE_PATH = '/approvals';
export const CONFIRM_PAGE_PATH = '/confirm';

/** The page of approval `id` on the gateway reached at `base` (no trailing slash). */
export function approvalPageUrl(base: string, id: string): string {
  return `${base}${APPROVALS_PAGE_PATH}/${encodeURIComponent(id)}`;
}

/** The page of confirmation `id` on the gateway reached at `base` (no trailing slash). */
export function confirmPageUrl(base: string, id: string): string {
  return `${base}${CONFIRM_PAGE_PATH}/${encodeURIComponent(id)}`;
}

/** The pages a surface names in its questions, as one request reaches the gateway. */
export interface PageUrls {
  readonly approval: (id: string) => string;
  /** Absent where no page is served (stdio): such a request is never sent to one. */
  readonly confirmation?: (id: string) => string;
}
