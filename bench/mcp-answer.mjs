// In-process cost of a tools/call answer built from a large HTTP result: parse the
// upstream's body, build the envelope, make the text block (the envelope cut to
// budget-bytes) and the answer: its text measured (for Content-Length) and encoded, as
// sending it does, or, in a build that does so, its bytes written from its parts. The upstream body is bench/servers/upstream.mjs's sized document
// (one long plain-text string), as in section 3b. Builds take turns in one process
// each round, so a busy minute falls on all of them.
//
//   node bench/mcp-answer.mjs [--sizes 102400,1048576] [--rounds 5] [--calls 400] [--text] DIST…
//
// DIST is a build's dist/ folder (default: this checkout's). Prints µs a call per build
// and size, median (min–max) over the rounds.
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    sizes: { type: 'string', default: '102400,1048576' },
    rounds: { type: 'string', default: '5' },
    calls: { type: 'string', default: '400' },
    child: { type: 'string' },
    // Every build assembles the answer as text (the parts' own effect, against the same build).
    text: { type: 'boolean', default: false },
  },
});

if (opts.child) {
  // One build, one size: warm, then time `calls` answers; prints µs a call.
  const dist = resolve(positionals[0]);
  const bytes = Number(opts.child);
  const { buildEnvelope } = await import(join(dist, 'envelope', 'envelope.js'));
  const { toolResultText, toolResultParts } = await import(
    join(dist, 'projection', 'mcp', 'tool-result-text.js')
  );
  // A build that writes a large answer as bytes from its parts does so past 64 K
  // characters of envelope (projection/mcp/dispatch.ts); an older one assembles text.
  const { resultFromParts } = await import(join(dist, 'mcp-wire', 'json-rpc.js'));
  const item = { id: 7, name: 'widget', price: 9.5, tags: ['a', 'b'] };
  const pad = bytes - JSON.stringify(item).length - 18;
  const text = JSON.stringify({
    ...item,
    description: 'A small blue widget. '.repeat(Math.ceil(pad / 21)).slice(0, pad),
  });
  const limits = { maxBytes: 4_000_000, budgetBytes: 40_000 };
  const tail = { modern: true, meta: '{"io.modelcontextprotocol/request-id":"1"}' };
  const answer = () => {
    const envelope = buildEnvelope({ result: JSON.parse(text), resultJson: text }, limits);
    const out = { ok: true, envelope };
    if (resultFromParts && !opts.text && envelope.json.length > 64 * 1024)
      return resultFromParts(1, toolResultParts(out, tail)).length;
    // Measured for its Content-Length, then encoded as the socket write does.
    const body = `{"jsonrpc":"2.0","id":1,"result":${toolResultText(out, tail)}}`;
    return Buffer.byteLength(body) + Buffer.from(body).length;
  };
  const calls = Number(opts.calls);
  for (let i = 0; i < calls; i++) answer();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) answer();
  process.stdout.write(`${Number(process.hrtime.bigint() - t0) / calls / 1000}\n`);
  process.exit(0);
}

const dists = (positionals.length > 0 ? positionals : [join(ROOT, 'dist')]).map((d) => resolve(d));
const sizes = opts.sizes.split(',').map(Number);
const figures = new Map();
for (let round = 0; round < Number(opts.rounds); round++)
  for (const size of sizes)
    for (const dist of dists) {
      const out = execFileSync(
        process.execPath,
        [
          fileURLToPath(import.meta.url),
          ...['--child', String(size), '--calls', opts.calls, dist],
          ...(opts.text ? ['--text'] : []),
        ],
        { encoding: 'utf8' },
      );
      const key = `${size}\t${dist}`;
      figures.set(key, [...(figures.get(key) ?? []), Number(out)]);
    }
console.log('| result bytes | build | µs a call, median (min–max) |');
console.log('| --- | --- | --- |');
for (const [key, xs] of figures) {
  const [size, dist] = key.split('\t');
  const s = [...xs].sort((a, b) => a - b);
  const f = (x) => x.toFixed(0);
  console.log(`| ${size} | ${dist} | ${f(s[s.length >> 1])} (${f(s[0])}–${f(s[s.length - 1])}) |`);
}
