/** Loopback peers for the package tests: the shared node SIP peer and test certificates. */
export { startSipPeer, answer, silent, type SipPeer, type Behaviour } from '../../../../test/support/sip-peer.js';
export { makeCertificate, type TestCertificate } from '../../../../test/support/certs.js';
export { freePort } from '../../../../test/support/ports.js';

/** 127.0.6.70-99: the addresses of this package's tests (other test files use other ranges). */
export const PEER = (n: number): string => `127.0.6.${70 + n}`;
