/** The flag tables of the commands that talk to a server (`tools <url>`, `call`, `discover`). */
import { REMOTE_ARG_OPTIONS } from '../client/options.js';
import { defineCommand, type CommandSpec, type FlagValues } from './flags.js';

const REMOTE_FLAGS = { ...REMOTE_ARG_OPTIONS, json: { type: 'boolean' } } as const;

export type RemoteCommandValues = FlagValues<typeof REMOTE_FLAGS>;

/** `tools` and `call`: the remote flags and --json. */
export function remoteCommand(name: string, help: string): CommandSpec<typeof REMOTE_FLAGS> {
  return defineCommand({ name, help, flags: REMOTE_FLAGS });
}
