/** `--http [host]:port`: where to listen, and whether that is loopback only. */
import { isIP, type AddressInfo } from 'node:net';

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
  readonly loopback: boolean;
}

export const DEFAULT_LISTEN = '127.0.0.1:8080';

/** `:8080` = all interfaces; `8080` = loopback; `host:port`; `[::1]:8080`. `flag` names it in errors. */
export function parseListen(text: string, flag = '--http'): ListenAddress | string {
  let host: string;
  let portText: string;
  const v6 = /^\[([^\]]+)\]:(\d+)$/.exec(text);
  if (v6) {
    host = v6[1]!;
    portText = v6[2]!;
  } else if (/^\d+$/.test(text)) {
    host = '127.0.0.1';
    portText = text;
  } else {
    const i = text.lastIndexOf(':');
    if (i < 0)
      return `${flag} ${JSON.stringify(text)}: expected [host]:port, e.g. :8080 or 127.0.0.1:8080`;
    host = text.slice(0, i) || '0.0.0.0';
    portText = text.slice(i + 1);
  }
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535)
    return `${flag} ${JSON.stringify(text)}: ${JSON.stringify(portText)} is not a port`;
  if (host !== 'localhost' && isIP(host) === 0 && !/^[a-z0-9.-]+$/i.test(host))
    return `${flag} ${JSON.stringify(text)}: ${JSON.stringify(host)} is not a host`;
  return { host, port, loopback: isLoopbackHost(host) };
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    h === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
  );
}

/**
 * The http://host:port a bound server is reached at: the port it got (`:0` picks one),
 * an IPv6 host in brackets, and all interfaces through loopback.
 */
export function boundUrl(listen: ListenAddress, addr: string | AddressInfo | null): string {
  const port = typeof addr === 'object' && addr ? addr.port : listen.port;
  const host = listen.host.includes(':')
    ? `[${listen.host}]`
    : listen.host === '0.0.0.0'
      ? '127.0.0.1'
      : listen.host;
  return `http://${host}:${port}`;
}
