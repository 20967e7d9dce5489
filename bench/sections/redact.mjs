// Section 7 of `npm run bench`: redaction of results (bench/redact.mjs, in-process
// against the compiled build, in a process of its own).
import { f2 } from '../lib/stats.mjs';
import { markdownTable } from './markdown-table.mjs';

const run = (ctx) => ctx.runBuildBench('redact.mjs', [ctx.quick ? '150' : '700'], 'redact bench');

function report(s) {
  return [
    '### 7. Redaction (in-process, compiled build)',
    '',
    'One scan of the result JSON for every spelling of every secret (no secret: the hot path), and scan + replace when spellings of the token occur every ~50 rows; ratios to an `indexOf` of a missing character over the same text, in the same run.',
    '',
    ...markdownTable(
      [
        'result',
        'secrets',
        'no secret ns/byte (MB/s)',
        '× indexOf',
        'with secrets ns/byte',
        '× indexOf',
        'JSON.parse ns/byte',
      ],
      s.map((r) => [
        r.size,
        r.secrets,
        `${f2(r.noSecretNsPerByte)} (${(1e3 / r.noSecretNsPerByte).toFixed(0)})`,
        (r.noSecretNsPerByte / r.indexOfNsPerByte).toFixed(1),
        f2(r.withSecretsNsPerByte),
        (r.withSecretsNsPerByte / r.indexOfNsPerByte).toFixed(1),
        f2(r.jsonParseNsPerByte),
      ]),
    ),
    '',
  ];
}

export const redactSection = { key: 'redact', label: 'redaction', run, report };
