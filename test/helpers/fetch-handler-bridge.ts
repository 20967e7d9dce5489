/**
 * Answers a node:http request with a fetch-style handler (the SDK v2 server's
 * `createMcpHandler(...).fetch`), for the MCP servers tests start on 127.0.0.1: the
 * request's headers and already-read body go in, the Response's status, headers and
 * streamed body come out.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface FetchHandler {
  fetch(request: Request): Promise<Response>;
}

export async function answerWithFetchHandler(
  handler: FetchHandler,
  req: IncomingMessage,
  res: ServerResponse,
  raw: string | Uint8Array,
): Promise<void> {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else if (v !== undefined) headers.set(k, v);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const response = await handler.fetch(
    new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      ...(hasBody && { body: raw }),
    }),
  );
  res.statusCode = response.status;
  response.headers.forEach((v, k) => res.setHeader(k, v));
  if (response.body) for await (const c of response.body) res.write(c);
  res.end();
}
