/**
 * Spec texts several suites serve, written once: the "issues" grants (list issues of a
 * repository, comment on an issue) with the variations the suites need, the acme
 * allowlist and the header of the issues test server. A suite composes its spec from
 * these plus what only it needs, so a change to the shared grants is made here.
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
