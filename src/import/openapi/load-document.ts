/**
 * Reads an OpenAPI 3.0/3.1 or Swagger 2.0 document (JSON or YAML) into one object with
 * only internal `$ref`s, converted to OpenAPI 3. External (relative-file) references are
 * bundled by @readme/openapi-parser, every file read by ref-files.ts (which refuses
 * URLs and anything outside the document's folder, or the folder --ref-root names),
 * and 2.0 documents converted by swagger2openapi without its resolver; a
 * self-contained document skips the bundler (it would only copy it, at ~10x the time of
 * JSON.parse on GitHub's 13 MB description). Internal `$ref`s stay: the mapper resolves
 * them itself, which is where it detects cycles.
 */
import { dirname, relative, resolve } from 'node:path';
import { isObject, type JsonObject } from './json.js';
import { dropLiteralRefs, someObject } from './literal-values.js';
import {
  BadRefRoot,
  MAX_DOCUMENT_BYTES,
  readRefFile,
  readRegularFile,
  refRoot,
  RefusedFile,
  type RefRoot,
} from './ref-files.js';

/** A document that cannot be imported: one line for the terminal, and the exit code. */
export class ImportError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export interface LoadedDocument {
  readonly doc: JsonObject;
  /** The version the file was written in: "2.0", "3.0.3", "3.1.0"... */
  readonly sourceVersion: string;
}

export interface LoadOptions {
  /** --ref-root: the folder the document's `$ref`s may reach, instead of its own. */
  readonly refRoot?: string;
}

export async function loadDocument(
  file: string,
  options: LoadOptions = {},
): Promise<LoadedDocument> {
  let text: string;
  try {
    text = (await readRegularFile(file, MAX_DOCUMENT_BYTES)).toString('utf8');
  } catch (err) {
    if (err instanceof RefusedFile) throw new ImportError(`${file}: ${err.message}`);
    const code = (err as { code?: string }).code;
    if (code === 'ENOENT') throw new ImportError(`${file}: no such file`);
    if (code === 'EISDIR') throw new ImportError(`${file}: is a directory, not a document`);
    throw new ImportError(`${file}: cannot be read (${code ?? (err as Error).message})`);
  }
  // A wrong --ref-root is the command line's fault, said whether or not a $ref needs it.
  let root: RefRoot | undefined;
  if (options.refRoot !== undefined) {
    try {
      root = await refRoot(file, options.refRoot);
    } catch (err) {
      if (err instanceof BadRefRoot) throw new ImportError(err.message, 2);
      throw err;
    }
  }
  const parsed = await parseText(text, file);
  const sourceVersion = openApiVersion(parsed, file);
  let doc = parsed as JsonObject;
  dropLiteralRefs(doc);
  if (hasExternalRef(doc)) doc = await bundle(file, root ?? (await refRoot(file)));
  if (sourceVersion.startsWith('2.')) doc = await convertSwagger2(doc, file);
  return { doc, sourceVersion };
}

async function parseText(text: string, file: string): Promise<unknown> {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // JSON is YAML too: the YAML parser gives the better message for a broken file.
    }
  }
  const { parse } = await import('yaml');
  try {
    return parse(text, { maxAliasCount: 1000 }) as unknown;
  } catch (err) {
    const first = ((err as Error).message ?? '').split('\n')[0];
    throw new ImportError(`${file}: not JSON or YAML (${first})`);
  }
}

function openApiVersion(doc: unknown, file: string): string {
  if (isObject(doc)) {
    const v = doc.openapi ?? doc.swagger;
    if (typeof v === 'string' && (/^3\.[01](\.|$)/.test(v) || v === '2.0')) {
      if (!isObject(doc.paths) && !isObject(doc.webhooks))
        throw new ImportError(`${file}: an OpenAPI ${v} document without "paths"`);
      return v;
    }
    if (typeof v === 'string' || typeof v === 'number')
      throw new ImportError(
        `${file}: OpenAPI version ${JSON.stringify(v)} is not one we import (3.0, 3.1 or Swagger 2.0)`,
      );
  }
  throw new ImportError(
    `${file}: not an OpenAPI document (no "openapi: 3.x" or "swagger: \\"2.0\\"" at the top)`,
  );
}

function hasExternalRef(node: unknown): boolean {
  return someObject(node, (o) => typeof o.$ref === 'string' && !o.$ref.startsWith('#'));
}

/**
 * The bundler with our reader in place of its resolvers: ours runs first for every
 * reference (its canRead says yes to all), and the http resolver it always configures
 * is told it can read nothing, so a refusal of ours is never retried by it.
 */
async function bundle(file: string, root: RefRoot): Promise<JsonObject> {
  const { bundle: bundleDocument } = await import('@readme/openapi-parser');
  const base = dirname(resolve(file));
  const shown = (p: string): string => relative(base, p) || p;
  let refused: string | undefined;
  const reader = {
    order: 1,
    canRead: () => true,
    read: async (f: { url: string; reference?: string }) => {
      try {
        // The file's literal values lose their `$ref`s as the document's did; JSON text
        // is what both of the bundler's parsers read.
        const bytes = await readRefFile(f.url, root);
        return JSON.stringify(dropLiteralRefs(await parseText(bytes.toString('utf8'), f.url)));
      } catch (err) {
        if (err instanceof RefusedFile)
          refused ??= `${file}: the $ref ${JSON.stringify(f.reference ?? f.url)} ${err.message}`;
        else if ((err as { code?: string }).code === 'ENOENT')
          refused ??= `${file}: a $ref points to ${shown(decodeURI(f.url))}, which does not exist`;
        throw err;
      }
    },
  };
  const options = {
    resolve: { external: true, file: reader, http: { canRead: () => false } },
  } as unknown as Parameters<typeof bundleDocument>[1];
  try {
    return (await bundleDocument(resolve(file), options)) as unknown as JsonObject;
  } catch (err) {
    if (refused) throw new ImportError(refused);
    const message = (err as Error).message ?? String(err);
    const parsing = /^Error parsing (.+?): /.exec(message);
    if (parsing)
      throw new ImportError(`${file}: the $ref'd file ${shown(parsing[1]!)} is not JSON or YAML`);
    const missing = /^Missing \$ref pointer "(.+?)"/.exec(message);
    if (missing)
      throw new ImportError(`${file}: a $ref points to ${missing[1]}, which does not exist`);
    throw new ImportError(`${file}: its $refs cannot be resolved (${message.split('\n')[0]})`);
  }
}

async function convertSwagger2(doc: JsonObject, file: string): Promise<JsonObject> {
  const { default: swagger2openapi } = await import('swagger2openapi');
  try {
    const out = await swagger2openapi.convertObj(doc, {
      patch: true,
      warnOnly: true,
      resolve: false,
    });
    return out.openapi as JsonObject;
  } catch (err) {
    const message = ((err as Error).message ?? String(err)).split('\n')[0];
    throw new ImportError(`${file}: this Swagger 2.0 document cannot be converted (${message})`);
  }
}
