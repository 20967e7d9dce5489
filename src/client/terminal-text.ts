/**
 * Text a remote server chose (tool names, titles, descriptions, results, error messages)
 * goes to the operator's terminal only with its control characters made visible: an
 * ESC (\u001b) starts the sequences that clear the screen, move the cursor, retitle the
 * window (OSC) or write to the clipboard, and a CR overwrites the line already printed.
 * C0 (U+0000–U+001F), DEL and C1 (U+0080–U+009F; a terminal may read U+009B as ESC [)
 * are printed as `\uXXXX`. Line feed and tab are kept: they are layout, not commands.
 */

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function escapeTerminalControls(text: string): string {
  return text.replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
