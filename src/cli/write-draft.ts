/** Where an importer's draft goes: the `-o` file, or stdout; the summary always to stderr. */
import { writeFile } from 'node:fs/promises';
import { readableError } from './output.js';
import { escapeTerminalControls } from '../client/terminal-text.js';

/** 0 once the draft and its summary are out; 1 when the file cannot be written. */
export async function writeDraft(
  text: string,
  summary: string,
  output: string | undefined,
): Promise<number> {
  if (output !== undefined) {
    try {
      await writeFile(output, text);
    } catch (err) {
      process.stderr.write(
        escapeTerminalControls(
          `mcp-beaver import: cannot write ${output}: ${readableError(err)}\n`,
        ),
      );
      return 1;
    }
  } else process.stdout.write(text);
  // What goes to stderr may quote the source, whose text may hold escape sequences;
  // the draft itself holds no control character (the writer escapes them, kdl-text.ts).
  process.stderr.write(escapeTerminalControls(summary));
  if (output !== undefined)
    process.stderr.write(
      escapeTerminalControls(`wrote ${output}; next: mcp-beaver check ${output}\n`),
    );
  return 0;
}
