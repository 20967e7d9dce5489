// When a child `mcp-beaver serve` is up: the gateway logs `{"msg":"mcp-beaver listening",
// "url":...}` at info level once its port is bound. The bench, the soak and the tests that
// run the CLI as a process (test/reliability, test/ship) all wait for that line; plain .mjs
// so the bench and the soak load it without tsx (types in listening.d.mts).

const MSG = 'mcp-beaver listening';

/** The URL of the first "listening" line in `text` (pino JSON lines), or undefined. */
export function listeningUrl(text) {
  for (const line of text.split('\n')) {
    if (!line.includes(`"${MSG}"`)) continue;
    try {
      const entry = JSON.parse(line);
      if (entry.msg === MSG && typeof entry.url === 'string') return entry.url;
    } catch {
      // a line cut mid-write: the next read has it whole
    }
  }
  return undefined;
}

/**
 * Resolves with the gateway's URL once `child` logs its "listening" line on stdout (or
 * stderr); rejects when the child exits first or after `timeoutMs`. `output()` in the
 * error is what the child wrote meanwhile, for the message.
 */
export function waitListening(child, { timeoutMs = 15_000, output } = {}) {
  return new Promise((resolve, reject) => {
    let seen = '';
    const said = () => (output ? output() : seen);
    const done = (fn, value) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      fn(value);
    };
    const onData = (b) => {
      seen += b.toString();
      const url = listeningUrl(seen);
      if (url !== undefined) done(resolve, url);
    };
    const onExit = (code, signal) =>
      done(reject, new Error(`serve exited (${code ?? signal}) before listening:\n${said()}`));
    const timer = setTimeout(
      () => done(reject, new Error(`no "${MSG}" line within ${timeoutMs} ms:\n${said()}`)),
      timeoutMs,
    );
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}
