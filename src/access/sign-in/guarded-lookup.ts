/**
 * A DNS lookup for the sockets of client metadata fetches that answers only public
 * addresses (security.md, "Client ID metadata documents"). It is the lookup the socket
 * itself uses, so the address checked is the address connected to: a name that resolves
 * to a public address for a check and to 127.0.0.1 a moment later (DNS rebinding) never
 * gets a second, unchecked resolution.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { mayConnect } from './public-address.js';

/** The error code the fetcher recognises in a failed connect's cause chain. */
export const REFUSED_ADDRESS_CODE = 'ERR_CLIENT_METADATA_ADDRESS';

export class RefusedAddressError extends Error {
  readonly code = REFUSED_ADDRESS_CODE;
  constructor() {
    super('the client metadata host resolves to a private, loopback or reserved address');
  }
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * `net.connect`'s `lookup`. Every address a name resolves to must pass: a name with one
 * private address among public ones is refused, since the socket may try any of them.
 */
export function guardedLookup(allowLoopback: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      if (addresses.length === 0 || !addresses.every((a) => mayConnect(a.address, allowLoopback)))
        return callback(new RefusedAddressError(), []);
      if (options.all === true) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}
