/**
 * The parts of undici the gateway uses, loaded from their own files instead of undici's
 * index. Why: the index also loads fetch, WebSocket, EventSource, the mock agents, the
 * cache stores and cookies (which pull in Node's own copy of undici), about half of
 * undici's code and ~45 ms of CPU at every start, for code the gateway never runs
 * (bench/RESULTS.md, "Cold start of a small spec: undici by its parts"). undici has no
 * exports map, so these paths are its files: a version that moves one fails the build
 * (esbuild cannot resolve it), never a request. package.json pins the version.
 */
import AgentClass from 'undici/lib/dispatcher/agent.js';
import ProxyAgentClass from 'undici/lib/dispatcher/proxy-agent.js';
import DispatcherClass from 'undici/lib/dispatcher/dispatcher.js';
import undiciErrors from 'undici/lib/core/errors.js';
import api from 'undici/lib/api/index.js';

// What undici's index does on load: `request`, `stream` and the rest are methods of every
// dispatcher. The same assignment, so a process that also loads the index (a test) sees
// one set of methods.
Object.assign(DispatcherClass.prototype, api);

export const Agent = AgentClass;
export type Agent = import('undici').Agent;
export const ProxyAgent = ProxyAgentClass;
export type ProxyAgent = import('undici').ProxyAgent;
export const errors = undiciErrors;
export type { Dispatcher } from 'undici';
