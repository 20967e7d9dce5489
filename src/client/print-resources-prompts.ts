/**
 * Terminal output of a remote server's resources, templates and prompts (`tools <url>`),
 * of a resources/read result (`read`) and of a prompts/get result (`prompt`).
 */

export interface RemoteResource {
  uri?: string;
  uriTemplate?: string;
  name?: string;
  title?: string;
  mimeType?: string;
}

export interface RemotePrompt {
  name: string;
  title?: string;
  arguments?: { name: string; required?: boolean }[];
}

export interface RemoteResourcesAndPrompts {
  resources?: RemoteResource[];
  resourceTemplates?: RemoteResource[];
  prompts?: RemotePrompt[];
}

function aligned(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => r[i]!.length))) ?? [];
  return rows
    .map((r) => `  ${r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}`.trimEnd())
    .map((line) => `${line}\n`)
    .join('');
}

/** A section per list the server has, after the tools; an empty list is left out. */
export function formatResourcesAndPrompts(s: RemoteResourcesAndPrompts): string {
  const sections: string[] = [];
  const resourceRows = (list: RemoteResource[] | undefined, key: 'uri' | 'uriTemplate') =>
    (list ?? []).map((r) => [r[key] ?? '', r.title ?? r.name ?? '', r.mimeType ?? '']);
  const resources = resourceRows(s.resources, 'uri');
  if (resources.length > 0) sections.push(`Resources:\n${aligned(resources)}`);
  const templates = resourceRows(s.resourceTemplates, 'uriTemplate');
  if (templates.length > 0) sections.push(`Resource templates:\n${aligned(templates)}`);
  const prompts = (s.prompts ?? []).map((p) => [
    p.name,
    p.title ?? '',
    (p.arguments ?? []).map((a) => `${a.name}${a.required ? '' : '?'}`).join(', '),
  ]);
  if (prompts.length > 0) sections.push(`Prompts:\n${aligned(prompts)}`);
  return sections.map((s) => `\n${s}`).join('');
}

interface Contents {
  uri?: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

/**
 * What `read` writes: text as it is, a blob as its bytes (a file redirected from stdout
 * gets the resource itself), or on a terminal one line saying what the bytes are.
 */
export function readOutput(contents: readonly Contents[], terminal: boolean): Buffer {
  const parts = contents.map((c) => {
    if (typeof c.text === 'string')
      return Buffer.from(c.text.endsWith('\n') ? c.text : `${c.text}\n`);
    const bytes = Buffer.from(c.blob ?? '', 'base64');
    if (!terminal) return bytes;
    return Buffer.from(
      `[${c.mimeType ?? 'binary'} ${c.uri ?? ''}: ${bytes.length} bytes; redirect stdout to a file to save them, or use --json]\n`,
    );
  });
  return Buffer.concat(parts);
}

interface PromptMessage {
  role: string;
  content: {
    type: string;
    text?: string;
    resource?: Contents;
    uri?: string;
    mimeType?: string;
  };
}

/** Each message as `[role]` and its text; an embedded resource says which one it is. */
export function formatPromptMessages(messages: readonly PromptMessage[]): string {
  return messages
    .map((m) => {
      const c = m.content;
      let head = `[${m.role}]`;
      let body: string;
      if (c.type === 'text') body = c.text ?? '';
      else if (c.type === 'resource') {
        const r = c.resource ?? {};
        head += ` resource ${r.uri ?? ''}${r.mimeType ? ` (${r.mimeType})` : ''}`;
        body =
          typeof r.text === 'string'
            ? r.text
            : `[${Buffer.from(r.blob ?? '', 'base64').length} bytes of binary content; use --json]`;
      } else if (c.type === 'resource_link') body = `[resource link ${c.uri ?? ''}]`;
      else body = `[${c.type} content${c.mimeType ? ` ${c.mimeType}` : ''}]`;
      return `${head}\n${body.endsWith('\n') ? body : `${body}\n`}`;
    })
    .join('\n');
}
