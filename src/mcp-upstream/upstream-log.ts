/**
 * Where an upstream MCP server's own words go: the gateway's log, at a level the
 * gateway chooses (a child's stderr, a restart, a dropped-lines summary).
 */
export type UpstreamLog = (level: 'info' | 'warn', message: string) => void;
