/** Tool names and default titles (spec-language.md, "Grants"). */

export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** `can create issue-comment` → `create_issue_comment`. */
export function toolName(verb: string, resource: string): string {
  return `${verb}_${resource}`.replace(/-/g, '_');
}

/** `can list issues` → "List issues"; `can create issue-comment` → "Create issue comment". */
export function defaultTitle(verb: string, resource: string): string {
  const words = `${verb} ${resource}`.replace(/[-_]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
