// Section 6 of `npm run bench`: the envelope's cost per byte (bench/envelope.mjs,
// in-process against the compiled build, in a process of its own).
import { f2 } from '../lib/stats.mjs';
import { markdownTable } from './markdown-table.mjs';

const run = (ctx) =>
  ctx.runBuildBench('envelope.mjs', [ctx.quick ? '150' : '700'], 'envelope bench');

function report(s) {
  return [
    '### 6. Envelope (in-process, compiled build)',
    '',
    ...markdownTable(
      [
        'result',
        'coverage only (fits) ns/byte',
        'truncation to 256 KiB ns/byte',
        'JSON.parse of the same bytes ns/byte',
      ],
      s.map((r) => [
        r.size,
        f2(r.coverageNsPerByte),
        r.truncationNsPerByte === null ? 'n/a (fits)' : f2(r.truncationNsPerByte),
        f2(r.jsonParseNsPerByte),
      ]),
    ),
    '',
  ];
}

export const envelopeSection = { key: 'envelope', label: 'envelope', run, report };
