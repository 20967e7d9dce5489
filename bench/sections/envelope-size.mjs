// Beside section 6 of `npm run bench` (run with it, `--only envelope`): the bytes of
// issue 17's 2,000-row result (bench/envelope-size.mjs): one build, a few ms.

const run = (ctx) => ctx.runBuildBench('envelope-size.mjs', [], 'envelope size bench');

function report(z) {
  return [
    `${z.rows} rows with a \`tags\` array each (${z.resultBytes} B of JSON): coverage of the whole result ${z.coverageBytes} B in ${z.coverageEntries} entries (${z.itemsOmitted} arrays omitted); ` +
      `whole envelope at max-bytes=${z.cap}: ${z.cappedEnvelopeBytes} B (coverage ${z.cappedCoverageBytes} B, ${z.cappedRowsKept} rows kept)` +
      (z.picked
        ? `; with \`pick ${z.picked.paths}\`: ${z.picked.bytes} B of ${z.picked.upstreamBytes} B, ${z.picked.cappedRowsKept} rows kept.`
        : '.'),
    '',
  ];
}

export const envelopeSizeSection = { key: 'envelopeSize', only: 'envelope', run, report };
