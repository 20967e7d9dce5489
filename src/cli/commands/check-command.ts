/** `mcp-beaver check`: its flags and its help. */
import { defineCommand } from '../flags.js';

export const CHECK_COMMAND = defineCommand({
  name: 'check',
  usage: ['<spec.mcp.kdl | folder>...'],
  about: `
A folder stands for every *.mcp.kdl file in it (mcp-beaver check specs/).
Compiles each spec without contacting anything: no environment variable, upstream
or database is needed. Prints one line per tool, resource, template and prompt:

  specs/demo.mcp.kdl: 12 tools (7 HTTP, 4 SQL, 1 MCP on 1 server), 4 resources, 1 prompt
    get_ticket  GET /tickets/{id}  read-only idempotent open-world  calls the default upstream as service
    ...
    resource docs://helpdesk/hours    text (text/plain)
    template helpdesk://tickets/{id}  from get_ticket (application/json)
    prompt   triage-ticket            arguments id, tone?  embeds helpdesk://tickets/{id}

(each grant ends with where its call goes and as whom: its upstream or database, and its
credential kind: service, client-credentials, exchange, user:<provider>, or without a
credential; named upstreams, databases and oauth-providers get a line each; a resource
is served from a file beside the spec, inline text, or a grant; scope= names
what a caller must hold to see it), then the size of each tools/list, the whole spec's
and each toolset's, as a caller holding every scope gets it (tokens are bytes / 4):

    tools/list  (all)  12 tools  6246 bytes  ~1562 tokens
    toolset tickets     6 tools  2853 bytes   ~714 tokens
    toolset orders      5 tools  3097 bytes   ~775 tokens

and warnings on stderr as file:line:col: warning CODE: ... (a grant without describe,
an unused restrict, a list of more than 128 tools, which some clients refuse, or above
limits list-tokens; exit 0).
A spec with sign-in also gets a line naming its provider's issuer, the redirect URI to
register there (https://<your gateway>/callback; exact with --public-url) and the
ID-token claim its people's scopes come from.
On errors, prints every one of them, one per line, as
  file:line:col: error CODE: grant name: field: what is wrong
and exits 1. Exit 0 means every spec compiled.
With --env, also lists the environment variables the spec names: each one's name,
line, what reads it (auth bearer, access api-key, mcp-server NAME env X from-env...)
and whether it is set here (a value is never printed):

  specs/orders-db.mcp.kdl: 3 environment variables, 1 that start-up reads not set
    variable           line  read by         here
    DATABASE_URL         11  database        set
    ORDERS_KEYS_READ     14  access api-key  not set
    ORDERS_KEYS_ADMIN    15  access api-key  set

then one line per variable start-up reads that is not set, as
  file:line:col: error ENV_UNSET: access api-key: ORDERS_KEYS_READ is not set, ...
(a variable nothing in the spec uses is listed, and never fails the check)
and exits 1, as serve would stop (serve names every missing variable in one error).
With --live, also opens every mcp-server the grants use (reading their credentials from
the environment), lists its tools and prints, per grant, a missing tool or an argument
the upstream's inputSchema lacks or types otherwise, as file:line; exits 1 on drift.`,
  flags: {
    quiet: {
      type: 'boolean',
      inUsage: true,
      help: 'Print nothing on success but the warnings',
    },
    env: {
      type: 'boolean',
      inUsage: true,
      help: 'List the environment variables the spec reads; exit 1 when one start-up needs is unset',
    },
    live: {
      type: 'boolean',
      inUsage: true,
      help: 'Open the mcp-servers and report drift from their tools',
    },
    'public-url': {
      type: 'string',
      value: 'URL',
      help: "The gateway's URL as clients reach it, as serve is given it",
      note: 'Names the exact redirect URI a sign-in spec registers at its provider.',
    },
  },
});
