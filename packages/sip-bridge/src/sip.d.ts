/**
 * Types for the npm `sip` package (0.0.6 ships none): its module.exports is the SipStack of
 * ./sip-stack.ts, the parts the bridge uses.
 */
declare module 'sip' {
  const sip: import('./sip-stack.js').SipStack;
  export default sip;
}
