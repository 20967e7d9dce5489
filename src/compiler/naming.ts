/** Names the spec gives: tools, arguments, and default titles (spec-language.md, "Grants"). */

export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** Argument names: safe as JSON keys and as identifiers in every client we know. */
export const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * The one name FIELD_NAME allows that no JSON key may carry through a JavaScript
 * object: assigning `__proto__` sets a prototype. Other Object.prototype names
 * (`toString`, `constructor`) are ordinary names (engine/guards/null-prototype.ts).
 */
export const RESERVED_NAME = '__proto__';

export function reservedMessage(what: string, name: string): string {
  return `${what} ${JSON.stringify(name)} is reserved: it names a JavaScript object's prototype, which JSON readers (this gateway's and many upstreams') treat specially`;
}

/** `can create issue-comment` → `create_issue_comment`. */
export function toolName(verb: string, resource: string): string {
  return `${verb}_${resource}`.replace(/-/g, '_');
}

/** `can list issues` → "List issues"; `can create issue-comment` → "Create issue comment". */
export function defaultTitle(verb: string, resource: string): string {
  const words = `${verb} ${resource}`.replace(/[-_]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
