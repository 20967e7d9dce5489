import type { ChildProcess } from 'node:child_process';

/** The URL of the first "mcp-beaver listening" line in `text`, or undefined. */
export function listeningUrl(text: string): string | undefined;

/** The gateway's URL once `child` logs its "listening" line; rejects on exit or timeout. */
export function waitListening(
  child: ChildProcess,
  options?: { timeoutMs?: number; output?: () => string },
): Promise<string>;
