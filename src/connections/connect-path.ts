/** Where the connect pages are served (connect-routes.ts) and how the engine names them. */
export const CONNECT_PATH = '/connect';

/** The connect link `id` for `provider` on the gateway reached at `base` (no trailing slash). */
export function connectPageUrl(base: string, provider: string, id: string): string {
  return `${base}${CONNECT_PATH}/${encodeURIComponent(provider)}/${encodeURIComponent(id)}`;
}

/** Where the provider sends the browser back, as registered with it. */
export function connectCallbackUrl(base: string, provider: string): string {
  return `${base}${CONNECT_PATH}/${encodeURIComponent(provider)}/callback`;
}
