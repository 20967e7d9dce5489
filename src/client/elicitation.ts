/**
 * How `mcp-beaver call` answers a server that asks its user something (issue 29): a
 * gateway's `confirm` grant asks a form elicitation with one boolean `confirm`, its
 * `approve` grant a URL elicitation pointing at the approval. The operator answers a
 * form on the terminal (y/N), or `--yes` answers it for a script; a URL is shown and
 * accepted, so that the SDK repeats the call, which runs if someone approved meanwhile.
 * The server's message is its text (filled from an agent's arguments): it reaches the
 * terminal with its control characters made visible.
 */
import { createInterface } from 'node:readline';
import type { ElicitRequestParams, ElicitResult } from '@modelcontextprotocol/client';
import { escapeTerminalControls } from './terminal-text.js';

export interface ElicitationIo {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** Both ends are a terminal: a person can be asked. */
  readonly interactive: boolean;
  /** `--yes`: a confirmation is answered yes without asking. */
  readonly yes: boolean;
}

export type ConfirmAnswer = 'accept' | 'decline' | 'cancel';

/**
 * Shows the message, asks `Confirm? [y/N] ` and reads one line: y or yes (any case) is
 * accept, any other line decline, the end of input (Ctrl-D) or Ctrl-C cancel.
 */
export function askConfirmation(
  message: string,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Promise<ConfirmAnswer> {
  output.write(`${escapeTerminalControls(message)}\n`);
  const terminal = (input as { isTTY?: boolean }).isTTY === true;
  const rl = createInterface({ input, output, terminal });
  return new Promise((resolve) => {
    let answered = false;
    const answer = (a: ConfirmAnswer): void => {
      if (answered) return;
      answered = true;
      rl.close();
      resolve(a);
    };
    rl.once('line', (line) => answer(/^\s*y(es)?\s*$/i.test(line) ? 'accept' : 'decline'));
    rl.once('close', () => {
      if (!answered) output.write('\n');
      answer('cancel');
    });
    rl.once('SIGINT', () => {
      output.write('\n');
      answer('cancel');
    });
    output.write('Confirm? [y/N] ');
  });
}

/** The form the gateway asks: exactly one boolean `confirm`. */
function isConfirmForm(schema: unknown): boolean {
  const s = schema as { properties?: Record<string, { type?: unknown }> } | undefined;
  const names = Object.keys(s?.properties ?? {});
  return names.length === 1 && names[0] === 'confirm' && s!.properties!.confirm!.type === 'boolean';
}

/** The answer to one `elicitation/create`. */
export async function answerElicitation(
  params: ElicitRequestParams,
  io: ElicitationIo,
): Promise<ElicitResult> {
  const say = (text: string): void => void io.output.write(`${text}\n`);
  const message = escapeTerminalControls(params.message);
  if (params.mode === 'url') {
    say(`Approval needed: ${message}\n  ${escapeTerminalControls(params.url)}`);
    return { action: 'accept' };
  }
  if (!isConfirmForm(params.requestedSchema)) {
    say(`The server asks for a form this command cannot fill: ${message}\nDeclined.`);
    return { action: 'decline' };
  }
  if (io.yes) {
    say(`${message}\nConfirmed (--yes).`);
    return { action: 'accept', content: { confirm: true } };
  }
  if (!io.interactive) {
    say(
      `${message}\nDeclined: confirming needs a terminal to ask on, or --yes to confirm without asking.`,
    );
    return { action: 'decline' };
  }
  const answer = await askConfirmation(params.message, io.input, io.output);
  return answer === 'accept'
    ? { action: 'accept', content: { confirm: true } }
    : { action: answer };
}
