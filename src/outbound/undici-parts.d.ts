// Types for the undici files src/outbound/undici.ts loads one by one (the package
// declares its index only): each is the class or object its index exports by that name.
declare module 'undici/lib/dispatcher/agent.js' {
  const Agent: typeof import('undici').Agent;
  export default Agent;
}
declare module 'undici/lib/dispatcher/proxy-agent.js' {
  const ProxyAgent: typeof import('undici').ProxyAgent;
  export default ProxyAgent;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  const Dispatcher: typeof import('undici').Dispatcher;
  export default Dispatcher;
}
declare module 'undici/lib/core/errors.js' {
  const errors: typeof import('undici').errors;
  export default errors;
}
declare module 'undici/lib/api/index.js' {
  const api: Record<string, unknown>;
  export default api;
}
