/**
 * Options that point libunbound at one server for lab.test (unsigned): the tests of questions
 * held in flight (a hold proxy), of reload, of threads and of the sockets' close-on-exec.
 */
import type { UnboundOptions } from '../../src/options.js';

/**
 * Hermetic options: a stub for lab.test and one for "." at `server` ("127.0.0.1@PORT"), so a stray
 * name never leaves loopback; no system files, no trust anchor, no QNAME minimisation. `extra` wins.
 */
export function labOptions(server: string, extra: UnboundOptions = {}): UnboundOptions {
  return {
    hosts: false,
    resolvConf: false,
    trustAnchors: [],
    qnameMinimisation: false,
    // RFC 6761: libunbound answers NXDOMAIN for test. itself unless the zone is opened.
    localZones: [{ name: 'test', type: 'transparent' }],
    stubZones: [
      { name: 'lab.test', addresses: [server] },
      { name: '.', addresses: [server] },
    ],
    ...extra,
  };
}
