/**
 * The parts of the npm `sip` stack (0.0.6, no type definitions of its own) that the bench and
 * the shared test peer (test/support/sip-peer.ts, compiled with the bench) use.
 */
declare module 'sip' {
  export interface SipUriParts {
    schema: string;
    user?: string;
    host: string;
    port?: number;
    params: Record<string, string | null | undefined>;
  }
  export interface SipAddress {
    protocol: string;
    address: string;
    port: number;
  }
  export interface SipMessage {
    method?: string;
    uri?: string;
    status?: number;
    reason?: string;
    headers: Record<string, unknown>;
    content?: string;
  }
  export interface SipStack {
    send(message: SipMessage, callback?: (response: SipMessage) => void): void;
    destroy(): void;
  }
  export interface SipOptions {
    address?: string;
    port?: number;
    udp?: boolean;
    tcp?: boolean;
    hostname?: string;
    publicAddress?: string;
    logger?: unknown;
  }
  export function parseUri(text: string): SipUriParts;
  export function resolve(uri: SipUriParts, action: (addresses: SipAddress[]) => void): void;
  export function create(options: SipOptions, onRequest: (request: SipMessage, remote: unknown) => void): SipStack;
  export function makeResponse(
    request: SipMessage,
    status: number,
    reason?: string,
    extension?: { headers?: Record<string, unknown> },
  ): SipMessage;
  export function parse(data: string | Buffer): SipMessage | undefined;
  export function stringify(message: SipMessage): string;
  export function makeStreamParser(onMessage: (message: SipMessage) => void): (data: string) => void;

  const sip: {
    parseUri: typeof parseUri;
    resolve: typeof resolve;
    create: typeof create;
    makeResponse: typeof makeResponse;
    parse: typeof parse;
    stringify: typeof stringify;
    makeStreamParser: typeof makeStreamParser;
  };
  export default sip;
}
