/** The verb → method → annotations table of spec-language.md ("Grants"). */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export interface Behaviour {
  readonly readOnly: boolean;
  readonly destructive: boolean;
  readonly idempotent: boolean;
}

const BY_METHOD: Record<HttpMethod, Behaviour> = {
  GET: { readOnly: true, destructive: false, idempotent: true },
  POST: { readOnly: false, destructive: false, idempotent: false },
  PATCH: { readOnly: false, destructive: true, idempotent: false },
  PUT: { readOnly: false, destructive: true, idempotent: true },
  DELETE: { readOnly: false, destructive: true, idempotent: true },
};

const VERBS: Record<HttpMethod, readonly string[]> = {
  GET: ['list', 'get', 'read', 'search', 'find', 'fetch', 'count', 'query', 'show'],
  POST: ['create', 'add', 'post', 'send', 'submit', 'run', 'trigger'],
  PATCH: ['update', 'patch', 'edit', 'modify'],
  PUT: ['replace', 'put', 'set', 'upsert'],
  DELETE: ['delete', 'remove', 'cancel'],
};

const METHOD_OF_VERB = new Map<string, HttpMethod>(
  Object.entries(VERBS).flatMap(([m, verbs]) => verbs.map((v) => [v, m as HttpMethod] as const)),
);

export const KNOWN_VERBS: readonly string[] = [...METHOD_OF_VERB.keys()];

export function methodOfVerb(verb: string): HttpMethod | undefined {
  return METHOD_OF_VERB.get(verb);
}

export function behaviourOf(method: HttpMethod): Behaviour {
  return BY_METHOD[method];
}

export function isHttpMethod(text: string): text is HttpMethod {
  return (HTTP_METHODS as readonly string[]).includes(text);
}
