/**
 * The repository's own test rig, reused as it is: nsd on loopback, free ports, zone signing.
 * test/support is compiled into dist/support by tsconfig.support.json (see tsconfig.json).
 */
export { startNsd, type NsdServer, type NsdZone } from '../support/nsd.js';
export { freePort } from '../support/ports.js';
export { stopOnExit } from '../support/cleanup.js';
export { signZone, type SignedZone } from '../support/dnssec.js';
