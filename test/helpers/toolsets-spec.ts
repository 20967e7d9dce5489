/**
 * The spec of the toolset suites (spec-language.md, "Toolsets"), and the SDK v2 client
 * they connect to a toolset URL with. A helpdesk with billing beside it: `triage` holds
 * some tools, a fixed resource, a template backed by a non-member grant and a prompt
 * that embeds a non-member template; `billing` holds one tool and no `describe`.
 * FULL_KEYS hold every scope, READER_KEYS only tickets:read.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { MODERN } from './mcp-wire.js';

export const FULL_KEY = 'toolsets-full-key-7d1c3b';
export const READER_KEY = 'toolsets-reader-key-2e8f6a';
export const KEYS_ENV = { FULL_KEYS: FULL_KEY, READER_KEYS: READER_KEY };

export const SERVER_DESCRIBE = 'Helpdesk and billing of Acme.';
export const TRIAGE_DESCRIBE = 'Read tickets and propose a priority.';

/** Every tool of the spec, in spec order. */
export const ALL_TOOLS = ['list_tickets', 'get_ticket', 'get_customer', 'get_invoice'];
/** triage's tools in spec order (its `tools` names them in another). */
export const TRIAGE_TOOLS = ['list_tickets', 'get_ticket', 'get_invoice'];

export interface ToolsetsSpecOptions {
  /** `<upstream>/api` is the base URL. */
  readonly upstream: string;
  /** The `access` block's body; api keys FULL_KEYS and READER_KEYS by default. */
  readonly access?: string;
}

export const API_KEYS = `api-key env="FULL_KEYS" scopes="tickets:read billing:read"
    api-key env="READER_KEYS" scopes="tickets:read"`;

export function toolsetsSpec(opts: ToolsetsSpecOptions): string {
  return `
wrap "toolsets-test" version="1.0.0" {
    describe "${SERVER_DESCRIBE}"
}
base-url "${opts.upstream}/api"
access {
    ${opts.access ?? API_KEYS}
}
can list tickets {
    describe "List the open tickets."
    path "/tickets"
    scope "tickets:read"
}
can get ticket {
    describe "Get one ticket."
    path "/tickets/{id}" {
        id "integer" min=1
    }
    scope "tickets:read"
}
can get customer {
    describe "Get one customer."
    path "/customers/{id}" {
        id "integer" min=1
    }
    scope "tickets:read"
}
can get invoice {
    describe "Get one invoice."
    path "/invoices/{id}" {
        id "integer" min=1
    }
    scope "billing:read"
}
resource "docs://handbook" text="Be kind and quick." describe="How we answer."
resource "docs://billing-policy" text="Net 30." describe="When invoices are due."
resource "helpdesk://tickets/{id}" from="get_ticket" title="Ticket"
resource "helpdesk://customers/{id}" from="get_customer" title="Customer"
prompt "triage-ticket" {
    argument "id" required=#true describe="Ticket id."
    argument "tone" default="friendly" {
        enum "friendly" "formal"
    }
    message "user" "Triage ticket {id} in a {tone} tone."
    message "user" resource="helpdesk://tickets/{id}"
}
prompt "dun-customer" {
    argument "tone" default="firm" {
        enum "firm" "gentle"
    }
    message "user" "Remind the customer of the invoice in a {tone} tone."
}
toolset "triage" {
    describe "${TRIAGE_DESCRIBE}"
    tools "get_invoice" "get_ticket" "list_tickets"
    resources "docs://handbook" "helpdesk://customers/{id}"
    prompts "triage-ticket"
}
toolset "billing" {
    tools "get_invoice"
}
`;
}

export type Era = 'modern' | 'legacy';

/** The two eras the toolset URLs are tested in, as the SDK v2 client speaks them. */
export const ERAS: readonly [string, Era][] = [
  ['2026-07-28', 'modern'],
  ['2025-11-25', 'legacy'],
];

/** The SDK v2 client connected to `url` (a toolset URL or /mcp) in `era`, as the holder of `key`. */
export async function connectTo(url: string, era: Era, key?: string): Promise<Client> {
  const client = new Client(
    { name: 'toolsets-test', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: MODERN } : 'legacy' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}
