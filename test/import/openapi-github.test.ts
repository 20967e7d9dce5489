import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { toolName } from '../../src/compiler/naming.js';
import type { ImportResult } from '../../src/import/openapi/import-openapi.js';
import { formatSummary, skippedCount } from '../../src/import/openapi/summary.js';
import { toolsetNameOf } from '../../src/import/openapi/tag-toolsets.js';
import { check, checkErrors, draft, GITHUB, grantText } from './draft-helpers.js';

// GitHub's REST description (@octokit/openapi): 13 MB, 1,223 operations. Imported
// in-process once per mode here; every test reads these drafts.
describe("importing GitHub's REST description", () => {
  let reads: ImportResult;
  let writes: ImportResult;
  let again: ImportResult;
  let tagged: ImportResult;
  let checked: { reads: ReturnType<typeof check>; writes: ReturnType<typeof check> };
  beforeAll(async () => {
    reads = await draft(GITHUB);
    writes = await draft(GITHUB, { writes: true });
    again = await draft(GITHUB);
    tagged = await draft(GITHUB, { toolsets: 'tag' });
    checked = { reads: check(reads.text), writes: check(writes.text) };
  }, 180_000);

  it('drafts specs that check accepts with no errors, read-only and with --writes', () => {
    expect(checked.reads.errors).toEqual([]);
    expect(checked.writes.errors).toEqual([]);
    expect(checked.reads.names).toHaveLength(reads.summary.imported);
  });

  it('makes grants of at least 90% of the selected operations in both modes', () => {
    expect(reads.summary.seen).toBe(1223);
    for (const { summary: s } of [reads, writes]) {
      expect(s.imported + skippedCount(s)).toBe(s.selected);
      expect(s.imported / s.selected).toBeGreaterThanOrEqual(0.9);
    }
    expect(reads.summary.selected + reads.summary.writesLeftOut).toBe(writes.summary.selected);
  });

  it('gives the same bytes on a second run', () => {
    expect(again.text).toBe(reads.text);
  });

  it('names tools as an agent reads them, and reports the names it had to make unique', () => {
    const names = new Set(checked.writes.names);
    for (const n of [
      'list_repo_issues',
      'get_repo_issue',
      'create_repo_issue',
      'create_repo_issue_comment',
      'get_repo',
      'delete_repo',
      'list_repo_pulls',
      'search_issues',
      'delete_repo_actions_cache',
    ])
      expect(names, n).toContain(n);
    expect(names.size).toBe(writes.summary.imported);
    const renames = reads.summary.renames;
    expect(renames).toContainEqual({
      source: 'GET /user/repos (repos/list-for-authenticated-user)',
      from: 'list_user_repos',
      to: 'list_user_repos_for_authenticated',
    });
    expect(formatSummary(reads.summary)).toContain(
      `${renames.length} tool names collided and were made unique:`,
    );
  });

  it('drafts list_repo_issues with its source comment and typed, documented query fields', () => {
    const g = grantText(reads.text, 'GET /repos/{owner}/{repo}/issues (issues/list-for-repo)');
    expect(g.split('\n').slice(0, 10)).toEqual([
      '// GET /repos/{owner}/{repo}/issues (issues/list-for-repo)',
      'can list repo-issues {',
      '    describe "List repository issues. Only open issues will be listed."',
      '    path "/repos/{owner}/{repo}/issues" {',
      '        owner "string" describe="The account owner of the repository."',
      '        repo "string" describe="The name of the repository without the `.git` extension."',
      '    }',
      '    query {',
      '        milestone "string" describe="If an `integer` is passed, it should refer to a milestone by its `number` field."',
      '        state "string" default="open" describe="Indicates the state of the issues to return." {',
    ]);
    expect(g).toContain('        since "string" format="date-time" describe=');
    expect(g).toContain(
      '        per_page "integer" default=30 describe="The number of results per page (max 100)."',
    );
  });

  it('says the document declares no security scheme and suggests auth with GITHUB_TOKEN', () => {
    expect(reads.text).toContain(
      'base-url "https://api.github.com"\n// The document declares no security scheme. If the API takes a credential, add one, e.g.\n// auth bearer env="GITHUB_TOKEN"\n',
    );
  });

  it('skips nothing: every GET is one a grant can express, compare/{base}...{head} too', () => {
    // The one path with two values in one segment is drafted too (path-segments-import.test.ts).
    expect([...reads.summary.skipped]).toEqual([]);
    expect(reads.text).toContain(
      '// GET /repos/{owner}/{repo}/compare/{base}...{head} (repos/compare-commits)\ncan get repo-compare-commits {',
    );
    expect(reads.text).toContain(
      '// GET /repos/{owner}/{repo}/compare/{basehead} (repos/compare-commits-with-basehead)\ncan ',
    );
  });

  describe('with --toolsets=tag', () => {
    /** Each grant's tool name and its operation's tags, read from its source comment. */
    function grantTags(text: string): Map<string, string[]> {
      const doc = JSON.parse(readFileSync(GITHUB, 'utf8')) as {
        paths: Record<string, Record<string, { tags?: string[] }>>;
      };
      const out = new Map<string, string[]>();
      for (const m of text.matchAll(/^\/\/ ([A-Z]+) (\S+) \([^\n]*\)\ncan (\S+) (\S+) /gm))
        out.set(toolName(m[3]!, m[4]!), doc.paths[m[2]!]![m[1]!.toLowerCase()]!.tags ?? []);
      return out;
    }

    it('drafts one toolset per tag that check accepts, none above the 128 tools clients take', () => {
      expect(checkErrors(tagged.text)).toEqual([]);
      const sets = compileSpecText(tagged.text, 'draft.mcp.kdl').compiled!.toolsets;
      expect(sets).toHaveLength(45);
      for (const t of sets) expect(t.tools.length, t.name).toBeLessThanOrEqual(128);
      const size = new Map(sets.map((t) => [t.name, t.tools.length]));
      expect(size.get('repos')).toBe(107);
      expect(size.get('actions')).toBe(93);
      expect(size.get('issues')).toBe(27);
      expect(sets.map((t) => t.name)).toEqual(sets.map((t) => t.name).sort());
      expect(sets.find((t) => t.name === 'actions')!.description).toBe(
        'Endpoints to manage GitHub Actions using the REST API.',
      );
      expect(formatSummary(tagged.summary)).toContain(
        'wrote 45 toolsets, one per tag; the largest: repos (107 tools)',
      );
    });

    it('puts every imported grant in the toolset of each of its tags, and no other', () => {
      const compiled = compileSpecText(tagged.text, 'draft.mcp.kdl').compiled!;
      const tags = grantTags(tagged.text);
      expect(tags.size).toBe(compiled.tools.length);
      const members = new Map(compiled.toolsets.map((t) => [t.name, new Set(t.tools)]));
      for (const tool of compiled.tools) {
        const want = new Set(tags.get(tool.name)!.map((t) => toolsetNameOf(t)!));
        const has = [...members].filter(([, m]) => m.has(tool.name)).map(([n]) => n);
        expect(new Set(has), tool.name).toEqual(want);
      }
    });

    it('leaves the grants as they are without the flag: the toolsets come after them', () => {
      expect(tagged.text.startsWith(reads.text)).toBe(true);
      expect(tagged.text.slice(reads.text.length)).toMatch(/^\n\/\/ One toolset per tag/);
    });
  });
});
