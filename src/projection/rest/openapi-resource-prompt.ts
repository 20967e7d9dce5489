/**
 * POST /api/resources/read and POST /api/prompts/get in the OpenAPI document, present as
 * the routes are (resource-prompt-routes.ts) when the spec serves resources, or prompts: the body
 * each route reads, typed as the engine checks it (a URI that is one of the resources or
 * fills a template; a prompt's name with its own string arguments, none undeclared), the
 * answer, and the catalogue errors it can produce, a template's grant's among them.
 */
import { MAX_URI_CHARACTERS, templatePattern } from '../../compiler/uri-match.js';
import type {
  CompiledSpec,
  ToolDescriptor,
  PromptDescriptor,
  ResourceDescriptor,
} from '../../compiler/descriptor.js';
import { resourcePromptCodesFor } from './openapi-error-codes.js';
import { errorResponses } from './openapi-responses.js';
import {
  GET_PROMPT_PATH,
  READ_RESOURCE_PATH,
  type ServedKinds,
} from './resource-prompt-listing.js';

type Json = Record<string, unknown>;

/** What the caller may read and get (the engine's view); the whole spec for `openapi`. */
export interface ResourcePromptView {
  readonly resources: readonly ResourceDescriptor[];
  readonly templates: readonly ResourceDescriptor[];
  readonly prompts: readonly PromptDescriptor[];
}

export const RESOURCE_PROMPT_TAGS = {
  resources: 'MCP resources: fixed documents and URI templates backed by a grant.',
  prompts: 'MCP prompts: message templates filled with string arguments.',
} as const;

/** A schema's title and description for one prompt. */
function about(d: { title?: string; description?: string }, fallback: string): Json {
  return {
    title: d.title ?? fallback,
    ...(d.description !== undefined && { description: d.description }),
  };
}

/** The grants behind templates: reading one of their URIs runs the grant. */
function templateGrants(templates: readonly ResourceDescriptor[], spec: CompiledSpec) {
  const names = new Set(
    templates.flatMap((t) => (t.content.kind === 'tool' ? [t.content.tool] : [])),
  );
  return spec.tools.filter((d: ToolDescriptor) => names.has(d.name));
}

/** A required JSON request body with this schema. */
function jsonBody(schema: Json): Json {
  return { required: true, content: { 'application/json': { schema } } };
}

/** A JSON answer with this description and schema. */
function jsonAnswer(description: string, schema: Json): Json {
  return { description, content: { 'application/json': { schema } } };
}

const CONTENTS_SCHEMA: Json = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      uri: { type: 'string' },
      mimeType: { type: 'string' },
      text: { type: 'string' },
      blob: { type: 'string', contentEncoding: 'base64' },
    },
    required: ['uri', 'mimeType'],
  },
};

function readOperation(view: ResourcePromptView, spec: CompiledSpec): Json {
  const choices: Json[] = [
    ...view.resources.map((r) => ({ const: r.uri, title: r.name })),
    ...view.templates.map((t) => ({
      type: 'string',
      // The matcher's own rule, written as a pattern: each value ends at its literal's first place.
      pattern: templatePattern(t.literals),
      title: t.name,
      description: `A URI of the template ${t.uri}.`,
    })),
  ];
  const readable = [...view.resources, ...view.templates];
  const scoped = readable.some((r) => r.scopes.length > 0);
  const grants = templateGrants(view.templates, spec);
  return {
    operationId: 'readResource',
    summary: 'Read a resource',
    description:
      'The same read as MCP `resources/read`: a fixed resource answers its document; a URI of a template runs the grant behind it and answers its envelope as text.',
    tags: ['resources'],
    requestBody: jsonBody({
      type: 'object',
      properties: {
        uri: {
          type: 'string',
          description:
            'One of the resources, or a URI that fills a template. A URI over 2 KiB matches nothing.',
          maxLength: MAX_URI_CHARACTERS,
          ...(choices.length > 0 && { anyOf: choices }),
        },
      },
      required: ['uri'],
      additionalProperties: false,
    }),
    responses: {
      200: jsonAnswer('The resource: one entry of `contents`, `text` or base64 `blob`.', {
        type: 'object',
        properties: { contents: CONTENTS_SCHEMA },
        required: ['contents'],
      }),
      ...errorResponses(resourcePromptCodesFor(['RESOURCE_NOT_FOUND'], grants, scoped, spec)),
    },
  };
}

/**
 * An argument's description, its default said in words: a `default` keyword inside
 * `oneOf` is one a validator filling defaults cannot apply (ajv refuses it in strict mode).
 */
function argumentText(a: PromptDescriptor['arguments'][number]): string {
  const def = a.default !== undefined ? `Default: ${JSON.stringify(a.default)}.` : undefined;
  return [a.description, def].filter((s) => s !== undefined).join(' ');
}

function argumentsSchema(p: PromptDescriptor): Json {
  return {
    type: 'object',
    properties: Object.fromEntries(
      p.arguments.map((a) => [
        a.name,
        {
          type: 'string',
          maxLength: a.maxLength,
          ...(argumentText(a) !== '' && { description: argumentText(a) }),
          ...(a.enum !== undefined && { enum: [...a.enum] }),
          ...(a.pattern !== undefined && { pattern: a.pattern }),
        },
      ]),
    ),
    required: p.arguments.filter((a) => a.required).map((a) => a.name),
    additionalProperties: false,
  };
}

function getOperation(view: ResourcePromptView, spec: CompiledSpec): Json {
  const embeds = view.prompts.some((p) => p.messages.some((m) => 'resource' in m));
  const grants = embeds ? templateGrants(spec.resources, spec) : [];
  const codes = resourcePromptCodesFor(
    embeds ? ['UNKNOWN_PROMPT', 'RESOURCE_NOT_FOUND'] : ['UNKNOWN_PROMPT'],
    grants,
    view.prompts.some((p) => p.scopes.length > 0),
    spec,
  );
  return {
    operationId: 'getPrompt',
    summary: 'Get a prompt',
    description:
      'The same get as MCP `prompts/get`: the prompt’s messages with its arguments filled in; a message that embeds a resource reads it.',
    tags: ['prompts'],
    requestBody: jsonBody({
      type: 'object',
      ...(view.prompts.length > 0 && {
        oneOf: view.prompts.map((p) => ({
          ...about(p, p.name),
          properties: { name: { const: p.name }, arguments: argumentsSchema(p) },
        })),
      }),
      properties: {
        name: { type: 'string', description: 'The prompt to get.' },
        arguments: {
          type: 'object',
          description: 'The prompt’s arguments by name, each a string.',
        },
      },
      required: ['name'],
      additionalProperties: false,
    }),
    responses: {
      200: jsonAnswer('The messages, in order.', {
        type: 'object',
        properties: {
          description: { type: 'string' },
          messages: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                role: { type: 'string', enum: ['user', 'assistant'] },
                content: {
                  type: 'object',
                  description:
                    '`{"type":"text","text":…}`, or `{"type":"resource","resource":{uri, mimeType, text | blob}}`.',
                  properties: { type: { type: 'string', enum: ['text', 'resource'] } },
                  required: ['type'],
                },
              },
              required: ['role', 'content'],
            },
          },
        },
        required: ['messages'],
      }),
      ...errorResponses(codes),
    },
  };
}

/**
 * The resource and prompt routes of this view, as the server registers them: only for what
 * `serves` names (what the spec serves, or a toolset has members of).
 */
export function resourcePromptPaths(
  view: ResourcePromptView,
  spec: CompiledSpec,
  serves: ServedKinds,
): { paths: Record<string, { post: Json }>; tags: Json[] } {
  const paths: Record<string, { post: Json }> = {};
  const tags: Json[] = [];
  if (serves.resources) {
    paths[READ_RESOURCE_PATH] = { post: readOperation(view, spec) };
    tags.push({ name: 'resources', description: RESOURCE_PROMPT_TAGS.resources });
  }
  if (serves.prompts) {
    paths[GET_PROMPT_PATH] = { post: getOperation(view, spec) };
    tags.push({ name: 'prompts', description: RESOURCE_PROMPT_TAGS.prompts });
  }
  return { paths, tags };
}
