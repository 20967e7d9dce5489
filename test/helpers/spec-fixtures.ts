/**
 * Spec texts several suites serve, written once: the "issues" grants (list issues of a
 * repository, comment on an issue) with the variations the suites need, the acme
 * allowlist, the header of the issues test server, and the "helpdesk" spec of the
 * resource and prompt suites. A suite composes its spec from these plus what only it
 * needs, so a change to the shared grants is made here.
 */

/** `scope` lines for a grant, indented as inside its block. */
function scopeLines(scopes: readonly string[] = []): string {
  return scopes.map((s) => `\n    scope "${s}"`).join('');
}

export interface ListIssuesOptions {
  /** Adds `per_page` (1 to 100, default 30) beside `state`. */
  readonly perPage?: boolean;
  readonly scopes?: readonly string[];
}

/** `list_issues`: GET /repos/{owner}/{repo}/issues with a `state` enum defaulting to open. */
export function listIssuesGrant(opts: ListIssuesOptions = {}): string {
  const perPage = opts.perPage ? '\n        per_page "integer" min=1 max=100 default=30' : '';
  return `can list issues {
    describe "List issues of a repository."
    path "/repos/{owner}/{repo}/issues"
    query {
        state "string" default="open" { enum "open" "closed" "all"; }${perPage}
    }${scopeLines(opts.scopes)}
}`;
}

/** `get_issue`: GET /repos/{owner}/{repo}/issues/{number}. */
export function getIssueGrant(scopes?: readonly string[]): string {
  return `can get issue {
    describe "Get one issue."
    path "/repos/{owner}/{repo}/issues/{number}" {
        number "integer" min=1
    }${scopeLines(scopes)}
}`;
}

/** `create_issue_comment`: POST /repos/{owner}/{repo}/issues/{number}/comments with a required body. */
export function issueCommentGrant(scopes?: readonly string[]): string {
  return `can create issue-comment {
    describe "Comment on an issue."
    path "/repos/{owner}/{repo}/issues/{number}/comments" {
        number "integer" min=1
    }
    body {
        body "string" required=#true
    }${scopeLines(scopes)}
}`;
}

export interface SpecHeadOptions {
  readonly version?: string;
  /** The variable holding the upstream's bearer credential (`auth bearer env=`). */
  readonly bearerEnv?: string;
}

/**
 * A spec's first lines: its `wrap` name and version (1.0.0 by default), its upstream, and
 * the upstream's bearer credential when it has one.
 */
export function specHead(name: string, baseUrl: string, opts: SpecHeadOptions = {}): string {
  const auth = opts.bearerEnv ? `\nauth bearer env="${opts.bearerEnv}"` : '';
  return `wrap "${name}" version="${opts.version ?? '1.0.0'}"\nbase-url "${baseUrl}"${auth}`;
}

/** `get_thing`: GET /owners/{owner}/things/{id}, both strings; the telemetry suites' HTTP grant. */
export const GET_THING_GRANT = `can get thing {
    describe "One thing of an owner."
    path "/owners/{owner}/things/{id}" {
        owner "string"
        id "string"
    }
}`;

/**
 * `search_issues` of the MCP server "tracker", taking a `query` of at most 100
 * characters; `acmeOnly` sets its `owner` argument to acme, out of the caller's reach.
 */
export function searchIssuesToolGrant(opts: { acmeOnly?: boolean } = {}): string {
  const set = opts.acmeOnly
    ? `
    set {
        arg "owner" "acme"
    }`
    : '';
  return `can search issues {
    describe "Search issues of the acme organisation."
    tool "tracker" "search_issues"
    args {
        query "string" required=#true max-length=100
    }${set}
}`;
}

/** Only the acme organisation's repositories. */
export const ACME_ONLY = `restrict {
    owner "acme"
}`;

/** The issues test server's header: name, title, description, upstream and its credential. */
export function issuesServerHeader(upstream: string): string {
  return `wrap "issues-test" version="2.1.0" {
    title "Issues (test)"
    describe "Read issues of the acme organisation."
}
base-url "${upstream}/api"
auth bearer env="ISSUES_TOKEN"`;
}

export interface HelpdeskOptions {
  /** The `wrap` name, one a suite. */
  readonly name: string;
  /** The upstream's base URL; `get_ticket` calls `<baseUrl>/tickets/{id}`. */
  readonly baseUrl: string;
  /** The guide's description (the catalog suite puts markup in it). */
  readonly guideDescribe?: string;
  /** Adds `docs://helpdesk/pixel`, a binary file (`docs/pixel.png`), after the guide. */
  readonly pixel?: boolean;
  /** Adds `list_orders` (GET /orders, a required `status` enum open/paid) and its template. */
  readonly orders?: boolean;
  /** Gives the triage prompt's `id` the pattern `^[0-9]+$`. */
  readonly idPattern?: boolean;
  /** Adds the `audit-summary` prompt, which embeds the scoped audit note. */
  readonly auditSummary?: boolean;
  /**
   * `false`: an open helpdesk (the SDK clients suite), without the access block, the
   * scopes, or the audit note that only a scope could guard. Default true.
   */
  readonly access?: boolean;
  /** The triage prompt's description; none by default. */
  readonly triageDescribe?: string;
}

/**
 * A helpdesk behind two api keys: FULL_KEYS (tickets:read audit:read) and READER_KEYS
 * (tickets:read). It serves `get_ticket`, the file document `docs://helpdesk/guide`
 * (`docs/guide.md`, which the suite writes beside the spec), the note
 * `docs://helpdesk/audit` that needs audit:read, the template `helpdesk://tickets/{id}`
 * backed by `get_ticket`, and the prompt `triage-ticket` embedding that template.
 * With `access: false` there are no keys, no scopes and no audit note.
 */
export function helpdeskSpec(opts: HelpdeskOptions): string {
  const access = opts.access ?? true;
  // The audit-summary prompt embeds the audit note, which an open helpdesk does not serve.
  if (!access && opts.auditSummary) throw new Error('auditSummary needs the access block');
  const ticketScope = scopeLines(access ? ['tickets:read'] : []);
  const accessBlock = access
    ? `
access {
    api-key env="FULL_KEYS" scopes="tickets:read audit:read"
    api-key env="READER_KEYS" scopes="tickets:read"
}`
    : '';
  const audit = access
    ? `
resource "docs://helpdesk/audit" text="Audited daily." describe="Audit notes." {
    scope "audit:read"
}`
    : '';
  const orders = opts.orders
    ? `
can list orders {
    describe "Orders by status."
    path "/orders"
    query {
        status "string" required=#true { enum "open" "paid"; }
    }${ticketScope}
}`
    : '';
  const pixel = opts.pixel
    ? '\nresource "docs://helpdesk/pixel" file="docs/pixel.png" describe="One pixel."'
    : '';
  const ordersTemplate = opts.orders
    ? '\nresource "helpdesk://orders/{status}" from="list_orders"'
    : '';
  const idPattern = opts.idPattern ? ' pattern="^[0-9]+$"' : '';
  const triageDescribe =
    opts.triageDescribe !== undefined ? `\n    describe "${opts.triageDescribe}"` : '';
  const auditSummary = opts.auditSummary
    ? `
prompt "audit-summary" {
    message "user" resource="docs://helpdesk/audit"
}`
    : '';
  return `
wrap "${opts.name}" version="1.0.0"
base-url "${opts.baseUrl}"${accessBlock}
can get ticket {
    describe "Get one ticket."
    path "/tickets/{id}" {
        id "integer" min=1
    }${ticketScope}
}${orders}
resource "docs://helpdesk/guide" file="docs/guide.md" title="Guide" describe="${opts.guideDescribe ?? 'How we answer.'}"${pixel}${audit}
resource "helpdesk://tickets/{id}" from="get_ticket" title="Ticket"${ordersTemplate}
prompt "triage-ticket" {
    title "Triage a ticket"${triageDescribe}
    argument "id" required=#true${idPattern} describe="Ticket id."
    argument "tone" default="friendly" {
        enum "friendly" "formal"
    }
    message "user" "Triage ticket {id} in a {tone} tone."
    message "user" resource="helpdesk://tickets/{id}"
}${auditSummary}
`;
}
