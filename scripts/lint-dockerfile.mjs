#!/usr/bin/env node
// Lints the Dockerfile offline (no Docker engine): `npm run lint:docker [-- FILE]`.
//
// 1. dockerfile-utils (the linter of the VS Code Docker language server) with every
//    optional rule raised to an error: syntax, flags, casing, JSON form, duplicate
//    CMD/ENTRYPOINT/HEALTHCHECK, relative WORKDIR, ...
// 2. This project's image policy:
//    - every FROM names a stage or an image pinned by exact tag (x.y.z) or by digest,
//      after resolving ARG defaults; never `latest`;
//    - the final stage runs as a numeric non-root USER (runAsNonRoot can verify it);
//    - the final stage installs no dev dependencies and no build tools;
//    - ENTRYPOINT and CMD use the exec (JSON) form; EXPOSE 8080; no ADD (use COPY).
// Prints file:line:col problems; exits 1 when there is any (warnings included).
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { DockerfileParser } from 'dockerfile-ast';
import { validate, ValidationSeverity } from 'dockerfile-utils';

const file = resolve(process.argv[2] ?? 'Dockerfile');
const text = readFileSync(file, 'utf8');
const shown = relative(process.cwd(), file) || file;
const problems = [];
const report = (range, message) =>
  problems.push({
    line: (range?.start.line ?? 0) + 1,
    col: (range?.start.character ?? 0) + 1,
    message,
  });

// 1. dockerfile-utils
const E = ValidationSeverity.ERROR;
const diagnostics = validate(text, {
  deprecatedMaintainer: E,
  directiveCasing: E,
  emptyContinuationLine: E,
  instructionCasing: E,
  instructionCmdMultiple: E,
  instructionEntrypointMultiple: E,
  instructionHealthcheckMultiple: E,
  instructionJSONInSingleQuotes: E,
  instructionWorkdirRelative: E,
});
for (const d of diagnostics) report(d.range, `dockerfile-utils: ${d.message}`);

// 2. project policy
const dockerfile = DockerfileParser.parse(text);
const initialArgs = new Map();
for (const arg of dockerfile.getInitialARGs()) {
  const property = arg.getProperty();
  if (property?.getName()) initialArgs.set(property.getName(), property.getValue() ?? '');
}
const expand = (s) =>
  s.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (m, name) => initialArgs.get(name) ?? m);

const froms = dockerfile.getFROMs();
if (froms.length === 0) report(null, 'no FROM instruction');
const stages = new Set();
for (const from of froms) {
  const image = expand(from.getImage() ?? '');
  const range = from.getRange();
  if (!stages.has(image.toLowerCase())) {
    const at = image.indexOf('@');
    const digest = at >= 0 ? image.slice(at + 1) : '';
    const nameAndTag = at >= 0 ? image.slice(0, at) : image;
    const slash = nameAndTag.lastIndexOf('/');
    const colon = nameAndTag.lastIndexOf(':');
    const tag = colon > slash ? nameAndTag.slice(colon + 1) : '';
    if (image.includes('$')) report(range, `FROM ${image}: the image has an unresolved variable`);
    else if (digest !== '' && !/^sha256:[a-f0-9]{64}$/.test(digest))
      report(range, `FROM ${image}: malformed digest`);
    else if (digest === '' && !/^v?\d+\.\d+\.\d+([-_.][A-Za-z0-9._-]+)?$/.test(tag))
      report(
        range,
        `FROM ${image}: pin the base image by an exact version tag (e.g. node:24.21.0-bookworm-slim) or a digest`,
      );
  }
  const stage = from.getBuildStage();
  if (stage) stages.add(stage.toLowerCase());
}

const instructions = dockerfile.getInstructions();
const lastFrom = froms.at(-1);
const finalStage = lastFrom
  ? instructions.filter((i) => i.getRange().start.line >= lastFrom.getRange().start.line)
  : [];
const byKeyword = (k) => finalStage.filter((i) => i.getKeyword() === k);

for (const add of instructions.filter((i) => i.getKeyword() === 'ADD'))
  report(add.getRange(), 'use COPY instead of ADD (no remote URLs or implicit archive extraction)');

const users = byKeyword('USER');
const user = users.at(-1);
if (!user) report(lastFrom?.getRange(), 'the final stage sets no USER: it would run as root');
else {
  const name = (user.getArgumentsContent() ?? '').trim().split(':')[0];
  if (!/^\d+$/.test(name))
    report(user.getRange(), `USER ${name}: use a numeric uid so that runAsNonRoot can verify it`);
  else if (Number(name) === 0) report(user.getRange(), 'USER 0 is root');
}

for (const run of byKeyword('RUN')) {
  const cmd = run.getArgumentsContent() ?? '';
  if (/\bnpm\s+(ci|install|i)\b/.test(cmd) && !/--omit[= ]dev|--production\b/.test(cmd))
    report(run.getRange(), 'the final stage installs dev dependencies: use npm ci --omit=dev');
  if (
    /\b(apt-get|apt|apk)\s+(-\S+\s+)*(install|add)\b[^&;|]*\b(build-essential|gcc|g\+\+|make|python3?)\b/.test(
      cmd,
    )
  )
    report(run.getRange(), 'the final stage installs build tools');
}

for (const keyword of ['ENTRYPOINT', 'CMD']) {
  const instruction = byKeyword(keyword).at(-1);
  if (!instruction) {
    if (keyword === 'ENTRYPOINT') report(lastFrom?.getRange(), 'the final stage has no ENTRYPOINT');
    continue;
  }
  const content = (instruction.getArgumentsContent() ?? '').trim();
  let parsed;
  try {
    parsed = JSON.parse(content);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === 'string'))
    report(
      instruction.getRange(),
      `${keyword} must use the exec form ["...", "..."] so signals reach node`,
    );
}

const exposed = byKeyword('EXPOSE').flatMap((i) => i.getArguments().map((a) => a.getValue()));
if (!exposed.some((p) => /^8080(\/tcp)?$/.test(p)))
  report(lastFrom?.getRange(), 'the final stage does not EXPOSE 8080');

problems.sort((a, b) => a.line - b.line || a.col - b.col);
for (const p of problems) console.log(`${shown}:${p.line}:${p.col}: ${p.message}`);
console.log(
  problems.length === 0
    ? `${shown}: ok (dockerfile-utils, pinned bases, non-root user, exec-form entrypoint)`
    : `${shown}: ${problems.length} problem(s)`,
);
process.exit(problems.length === 0 ? 0 : 1);
