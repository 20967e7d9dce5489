/**
 * What the 2025-era confirmation tests share (issue 41): the SDK v1 client (2025-11-25)
 * declaring form elicitation with a handler that answers as its user would, and the raw
 * wire of the round trip (initialize for a session id, a tools/call read as an SSE stream
 * event by event, the answer POSTed back).
 */
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { LEGACY } from './mcp-wire.js';

export type UserAnswer = ElicitResult | ((params: unknown) => Promise<ElicitResult>);

/**
 * An SDK v1 client connected to `${url}${path}` as `key`, declaring form elicitation; its
 * user answers each question with `answer` (the params asked land in `seen`).
 */
export async function askingClientV1(
  url: string,
  key: string,
  answer: UserAnswer,
  seen: unknown[] = [],
  path = '/mcp',
): Promise<{ client: ClientV1; transport: TransportV1 }> {
  const client = new ClientV1(
    { name: 'legacy-asking-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    seen.push(request.params);
    return typeof answer === 'function' ? answer(request.params) : answer;
  });
  const transport = new TransportV1(new URL(`${url}${path}`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return { client, transport };
}

const json = (key: string, session?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  authorization: `Bearer ${key}`,
  'mcp-protocol-version': LEGACY,
  ...(session !== undefined && { 'mcp-session-id': session }),
});

let nextId = 1;

/** A raw initialize (declaring `capabilities`): the session id the gateway answered with. */
export async function initializeRaw(
  url: string,
  key: string,
  capabilities: Record<string, unknown> = { elicitation: { form: {} } },
): Promise<string | null> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: json(key),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  await res.text();
  return res.headers.get('mcp-session-id');
}

/** A raw 2025-era tools/call with `session`; the response as it came, body unread. */
export function toolsCallRaw(
  url: string,
  key: string,
  session: string | undefined,
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
  id: number = nextId++,
): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: json(key, session),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args },
    }),
    ...(signal && { signal }),
  });
}

/** POSTs a JSON-RPC response (the answer to a question) with `session`. */
export function answerRaw(
  url: string,
  key: string,
  session: string | undefined,
  message: Record<string, unknown>,
): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: json(key, session),
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
}

/** Reads an SSE body event by event: `next()` gives each `message` event's JSON. */
export function sseEvents(res: Response): { next(): Promise<unknown>; comments: () => number } {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let comments = 0;
  return {
    comments: () => comments,
    async next() {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6));
          if (block.startsWith(':')) comments++;
          if (data.length > 0) return JSON.parse(data.join('\n'));
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended; left unread: ${JSON.stringify(buffer)}`);
        buffer += decoder.decode(value, { stream: true });
      }
    },
  };
}
