#!/usr/bin/env node
// Validates `helm template` output without a cluster:
//
//   node charts/validate.mjs rendered.yaml [more.yaml ...]   (or - for stdin)
//
// For every rendered document:
//  1. YAML: parses, no duplicate keys; apiVersion, kind and metadata.name present; no two
//     objects of one kind share a name.
//  2. Schema: the kubernetes-models class of its apiVersion/kind (prometheus-operator models
//     for monitoring.coreos.com) validates it: types, required fields, enums, formats. An
//     apiVersion/kind without a model is an error.
//  3. Unknown fields: the models' validators let unknown fields through, so the documents
//     are also type-checked (TypeScript, excess property checks) against the same models'
//     interfaces: a misspelt field such as `readinesProbe` is an error.
//  4. The chart's promises: pods run as non-root with a read-only root file system, no
//     privilege escalation and all capabilities dropped; liveness /healthz, readiness
//     /readyz; resources set; terminationGracePeriodSeconds > preStop sleep + --grace;
//     --allowed-host for every Service name; the Service, PDB, HPA, ServiceMonitor and
//     NetworkPolicy select or target the Deployment's pods; the spec the ConfigMap holds
//     compiles (`mcp-beaver check`).
// Prints one line per problem and a summary; exits 1 on any problem.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import YAML from 'yaml';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const problems = [];
const problem = (where, message) => problems.push(`${where}: ${message}`);

/** Where each apiVersion's models live. */
function modelModule(apiVersion) {
  if (apiVersion.startsWith('monitoring.coreos.com/'))
    return `@kubernetes-models/prometheus-operator/${apiVersion}`;
  return `kubernetes-models/${apiVersion}`;
}

// 1. Parse.
const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node charts/validate.mjs RENDERED.yaml... (- for stdin)');
  process.exit(2);
}
const docs = [];
for (const file of files) {
  const text = readFileSync(file === '-' ? 0 : file, 'utf8');
  for (const parsed of YAML.parseAllDocuments(text, { uniqueKeys: true })) {
    const where0 = `${file}:${parsed.range ? lineOf(text, parsed.range[0]) : '?'}`;
    for (const e of parsed.errors) problem(where0, `YAML: ${e.message}`);
    if (parsed.errors.length > 0) continue;
    const doc = parsed.toJS();
    if (doc === null || doc === undefined) continue;
    const where = `${file}: ${doc?.kind ?? '?'}/${doc?.metadata?.name ?? '?'}`;
    if (typeof doc !== 'object' || Array.isArray(doc)) {
      problem(where0, 'a document that is not an object');
      continue;
    }
    if (typeof doc.apiVersion !== 'string' || typeof doc.kind !== 'string') {
      problem(where, 'no apiVersion or kind');
      continue;
    }
    if (typeof doc.metadata?.name !== 'string' || doc.metadata.name === '')
      problem(where, 'no metadata.name');
    docs.push({ file, where, doc });
  }
}
function lineOf(text, offset) {
  return text.slice(0, offset).split('\n').length;
}
const seen = new Set();
for (const { file, where, doc } of docs) {
  const id = `${file} ${doc.apiVersion} ${doc.kind} ${doc.metadata?.namespace ?? ''}/${doc.metadata?.name}`;
  if (seen.has(id)) problem(where, 'rendered twice');
  seen.add(id);
}

// 2. Schema validation with kubernetes-models.
for (const entry of docs) {
  const { where, doc } = entry;
  let Model;
  try {
    Model = (await import(modelModule(doc.apiVersion)))[doc.kind];
  } catch {
    Model = undefined;
  }
  if (typeof Model !== 'function') {
    problem(where, `no kubernetes-models model for ${doc.apiVersion} ${doc.kind}`);
    continue;
  }
  entry.typed = true;
  try {
    new Model(doc).validate();
  } catch (err) {
    problem(where, `schema: ${err.message}`);
  }
}

// 3. Unknown fields, by type-checking the documents against the models' interfaces.
{
  const typed = docs.filter((d) => d.typed);
  const virtual = join(ROOT, 'charts', '__rendered_objects__.ts');
  const lines = [];
  const imports = new Map();
  for (const { doc } of typed) {
    const spec = `${modelModule(doc.apiVersion)}/${doc.kind}`;
    if (!imports.has(spec)) imports.set(spec, `T${imports.size}`);
  }
  for (const [spec, alias] of imports)
    lines.push(`import type { I${spec.split('/').at(-1)} as ${alias} } from '${spec}';`);
  const starts = [];
  typed.forEach(({ doc }, i) => {
    starts.push(lines.length);
    const alias = imports.get(`${modelModule(doc.apiVersion)}/${doc.kind}`);
    lines.push(...`export const doc${i}: ${alias} = ${JSON.stringify(doc, null, 2)};`.split('\n'));
  });
  const source = lines.join('\n');
  const options = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, ...rest) =>
    name === virtual
      ? ts.createSourceFile(name, source, ts.ScriptTarget.ES2022, true)
      : getSourceFile.call(host, name, ...rest);
  host.fileExists = (name) => name === virtual || fileExists.call(host, name);
  host.readFile = (name) => (name === virtual ? source : readFile.call(host, name));
  const program = ts.createProgram([virtual], options, host);
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    if (d.file?.fileName !== virtual || d.start === undefined) {
      problem('type check', message);
      continue;
    }
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    let i = starts.length - 1;
    while (i > 0 && starts[i] > line) i -= 1;
    const path = fieldPath(lines, starts[i], line);
    problem(typed[i]?.where ?? 'type check', `${path ? `${path}: ` : ''}${message}`);
  }
}
/** The dotted path of the field on a line of the JSON.stringify(…, 2) output. */
function fieldPath(lines, start, line) {
  const path = [];
  let indent = Infinity;
  for (let l = line; l > start; l -= 1) {
    const m = /^( *)"([^"]+)":/.exec(lines[l]);
    if (m && m[1].length < indent) {
      path.unshift(m[2]);
      indent = m[1].length;
    } else if (!m) {
      const lead = /^( *)\S/.exec(lines[l]);
      if (lead && lead[1].length < indent && /^ *\{/.test(lines[l])) indent = lead[1].length;
    }
  }
  return path.join('.');
}

// 4. What the chart promises.
const seconds = (s) => {
  const m = /^(\d+)(ms|s|m|h)$/.exec(String(s));
  if (!m) return NaN;
  return Number(m[1]) * { ms: 0.001, s: 1, m: 60, h: 3600 }[m[2]];
};
const matches = (selector, labels) =>
  !!selector &&
  Object.entries(selector).every(([k, v]) => labels?.[k] === v) &&
  Object.keys(selector).length > 0;

const byFile = Map.groupBy
  ? Map.groupBy(docs, (d) => d.file)
  : docs.reduce((m, d) => m.set(d.file, [...(m.get(d.file) ?? []), d]), new Map());
for (const [file, group] of byFile) {
  const find = (kind) => group.filter((d) => d.doc.kind === kind);
  const deployments = find('Deployment');
  if (deployments.length !== 1) {
    problem(file, `expected one Deployment, found ${deployments.length}`);
    continue;
  }
  const { doc: deploy, where } = deployments[0];
  const pod = deploy.spec?.template?.spec ?? {};
  const podLabels = deploy.spec?.template?.metadata?.labels ?? {};
  const container = pod.containers?.find((c) => c.name === 'mcp-beaver');
  if (!matches(deploy.spec?.selector?.matchLabels, podLabels))
    problem(where, 'spec.selector does not match the pod template labels');
  if (!container) {
    problem(where, 'no container named mcp-beaver');
    continue;
  }
  const csc = container.securityContext ?? {};
  const psc = pod.securityContext ?? {};
  if (!(csc.runAsNonRoot ?? psc.runAsNonRoot)) problem(where, 'runAsNonRoot is not true');
  if ((csc.runAsUser ?? psc.runAsUser) === 0) problem(where, 'runAsUser is 0');
  if (csc.readOnlyRootFilesystem !== true) problem(where, 'readOnlyRootFilesystem is not true');
  if (csc.allowPrivilegeEscalation !== false)
    problem(where, 'allowPrivilegeEscalation is not false');
  if (!csc.capabilities?.drop?.includes('ALL')) problem(where, 'capabilities do not drop ALL');
  if (csc.privileged) problem(where, 'privileged container');
  if (container.livenessProbe?.httpGet?.path !== '/healthz')
    problem(where, 'livenessProbe is not GET /healthz');
  if (container.readinessProbe?.httpGet?.path !== '/readyz')
    problem(where, 'readinessProbe is not GET /readyz');
  if (!container.resources?.requests?.cpu || !container.resources?.requests?.memory)
    problem(where, 'resources.requests.cpu and .memory must be set');
  if (!container.resources?.limits?.memory) problem(where, 'resources.limits.memory must be set');
  const ports = new Set((container.ports ?? []).map((p) => p.name));
  for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
    const port = container[probe]?.httpGet?.port;
    if (typeof port === 'string' && !ports.has(port))
      problem(where, `${probe} uses port ${port}, which the container does not name`);
  }

  const args = container.args ?? [];
  const flag = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  if (args[0] !== 'serve') problem(where, 'args do not start with serve');
  const specPath = args[1] ?? '';
  const mounts = container.volumeMounts ?? [];
  const specMount = mounts.find((m) => specPath.startsWith(`${m.mountPath}/`));
  if (!specMount) problem(where, `the spec ${specPath} is on no volume mount`);
  if (!/^:\d+$/.test(flag('--http') ?? ''))
    problem(where, '--http must bind all interfaces (":PORT") to be reachable');
  const grace = seconds(flag('--grace') ?? '10s');
  const preStop = container.lifecycle?.preStop;
  const sleep = preStop?.sleep?.seconds ?? Number(preStop?.exec?.command?.[1] ?? 0);
  const tgps = pod.terminationGracePeriodSeconds ?? 30;
  if (!(tgps > sleep + grace))
    problem(
      where,
      `terminationGracePeriodSeconds ${tgps} must exceed the preStop sleep ${sleep}s + --grace ${grace}s`,
    );
  if (!mounts.some((m) => m.mountPath === '/tmp'))
    problem(where, 'no writable /tmp with a read-only root file system');
  const allowed = new Set(args.flatMap((a, i) => (args[i - 1] === '--allowed-host' ? [a] : [])));

  for (const { doc: svc, where: w } of find('Service')) {
    const name = svc.metadata.name;
    const ns = svc.metadata.namespace;
    for (const host of [name, `${name}.${ns}`, `${name}.${ns}.svc`])
      if (!allowed.has(host)) problem(w, `--allowed-host ${host} is missing from the Deployment`);
    if (![...allowed].some((h) => h.startsWith(`${name}.${ns}.svc.`)))
      problem(w, `--allowed-host ${name}.${ns}.svc.<cluster domain> is missing`);
    if (!matches(svc.spec?.selector, podLabels)) problem(w, 'selector does not match the pods');
    for (const p of svc.spec?.ports ?? [])
      if (typeof p.targetPort === 'string' && !ports.has(p.targetPort))
        problem(w, `targetPort ${p.targetPort} is not a container port name`);
    for (const { doc: sm, where: smw } of find('ServiceMonitor')) {
      if (!matches(sm.spec?.selector?.matchLabels, svc.metadata.labels))
        problem(smw, 'selector does not match the Service');
      for (const e of sm.spec?.endpoints ?? [])
        if (!(svc.spec?.ports ?? []).some((p) => p.name === e.port))
          problem(smw, `endpoint port ${e.port} is not a Service port name`);
    }
  }
  for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
    const host = container[probe]?.httpGet?.httpHeaders?.find(
      (h) => h.name.toLowerCase() === 'host',
    )?.value;
    if (allowed.size > 0 && host === undefined && !allowed.has('$(POD_IP)'))
      problem(where, `${probe} sends no Host header that --allowed-host accepts`);
    if (host !== undefined && allowed.size > 0 && !allowed.has(host))
      problem(where, `${probe} sends Host ${host}, which --allowed-host refuses`);
  }
  for (const { doc: pdb, where: w } of find('PodDisruptionBudget'))
    if (!matches(pdb.spec?.selector?.matchLabels, podLabels))
      problem(w, 'selector does not match the pods');
  for (const { doc: np, where: w } of find('NetworkPolicy'))
    if (!matches(np.spec?.podSelector?.matchLabels, podLabels))
      problem(w, 'podSelector does not match the pods');
  for (const { doc: hpa, where: w } of find('HorizontalPodAutoscaler')) {
    const ref = hpa.spec?.scaleTargetRef;
    if (ref?.kind !== 'Deployment' || ref?.name !== deploy.metadata.name)
      problem(w, 'scaleTargetRef is not the Deployment');
    if (deploy.spec?.replicas !== undefined)
      problem(where, 'spec.replicas is set although an HPA scales the Deployment');
  }

  // The spec volume: the chart's ConfigMap (whose spec must compile) or an existing one.
  const volume = (pod.volumes ?? []).find((v) => v.name === specMount?.name);
  const cmName = volume?.configMap?.name;
  const cm = find('ConfigMap').find((d) => d.doc.metadata.name === cmName);
  if (cm) {
    const key = specPath.slice(specMount.mountPath.length + 1);
    const text = cm.doc.data?.[key];
    if (typeof text !== 'string') problem(cm.where, `no data.${key}, the spec the pods serve`);
    else checkSpec(cm.where, key, cm.doc.data);
  } else if (!cmName) problem(where, 'the spec volume is not a ConfigMap');
}

/** `mcp-beaver check` on the spec (with its sibling files, e.g. a seed). */
function checkSpec(where, key, data) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-beaver-chart-'));
  try {
    for (const [name, content] of Object.entries(data)) writeFileSync(join(dir, name), content);
    const r = spawnSync(
      process.execPath,
      [join(ROOT, 'bin', 'mcp-beaver.js'), 'check', join(dir, key)],
      {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    if (r.status !== 0)
      problem(
        where,
        `the spec does not compile (mcp-beaver check):\n${(r.stdout + r.stderr).trim()}`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const p of problems) console.log(p);
const kinds = [...new Set(docs.map((d) => d.doc.kind))].sort().join(', ');
console.log(
  problems.length === 0
    ? `validate: ${docs.length} objects valid in ${files.length} rendering(s) (${kinds})`
    : `validate: ${problems.length} problem(s) in ${docs.length} objects`,
);
process.exit(problems.length === 0 ? 0 : 1);
