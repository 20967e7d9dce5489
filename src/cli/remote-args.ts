/** The flags of the commands that talk to a server (`tools <url>`, `call`): one parser. */
import { parseArgs } from 'node:util';
import { REMOTE_ARG_OPTIONS } from '../client/options.js';
import { readableError, type CommandMessages } from './output.js';

const REMOTE_COMMAND = {
  allowPositionals: true,
  options: {
    ...REMOTE_ARG_OPTIONS,
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
} as const;

export type RemoteCommandArgs = ReturnType<typeof parseArgs<typeof REMOTE_COMMAND>>;

/** The parsed flags, or the exit code after printing usage (or help, exit 0). */
export function parseRemoteCommand(
  argv: string[],
  help: string,
  messages: CommandMessages,
): RemoteCommandArgs | number {
  let parsed: RemoteCommandArgs;
  try {
    parsed = parseArgs({ ...REMOTE_COMMAND, args: argv });
  } catch (err) {
    return messages.usage(readableError(err));
  }
  if (parsed.values.help) {
    process.stdout.write(help);
    return 0;
  }
  return parsed;
}
