/**
 * The parts of the npm `sip` package (kirm/sip.js 0.0.6, which ships no types) that the bridge
 * uses: its message objects, its transport layer and its transaction layer. Structural types,
 * so an application passes the module it loaded (`import sip from 'sip'`) and gets one copy.
 */

/** A parsed SIP URI, as `sip.parseUri` returns it. */
export interface SipUriObject {
  readonly schema?: string;
  readonly user?: string;
  readonly password?: string;
  readonly host: string;
  readonly port?: number;
  readonly params: Readonly<Record<string, string | null | undefined>>;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface SipVia {
  version?: string;
  protocol?: string;
  host?: string;
  port?: number;
  params: Record<string, string | null | undefined>;
}

/** To, From, Contact, Route and Record-Route values. */
export interface SipNameAddr {
  name?: string;
  uri: string | SipUriObject;
  params?: Record<string, string | null | undefined>;
}

export interface SipCSeq {
  seq: number;
  method: string;
}

export interface SipHeaders {
  via?: SipVia[];
  to?: SipNameAddr;
  from?: SipNameAddr;
  'call-id'?: string;
  cseq?: SipCSeq | string;
  route?: SipNameAddr[] | string;
  'record-route'?: SipNameAddr[];
  contact?: SipNameAddr[] | '*';
  'content-length'?: number;
  [name: string]: unknown;
}

export interface SipRequest {
  method: string;
  uri: string | SipUriObject;
  version?: string;
  headers: SipHeaders;
  content?: string;
}

export interface SipResponse {
  status: number;
  reason: string;
  version?: string;
  headers: SipHeaders;
  content?: string;
}

export type SipMessage = SipRequest | SipResponse;

/** Where a message came from or goes to, in the stack's terms ("UDP", "TCP", "TLS"). */
export interface SipRemote {
  protocol: string;
  address: string;
  port: number;
  local?: { address: string; port: number };
}

/** What `transport.open` returns: send on one flow, release when done. */
export interface SipConnection {
  send(message: SipMessage): void;
  release(): void;
  readonly protocol: string;
}

export interface SipTransport {
  open(target: SipRemote, onError?: (error: Error) => void): SipConnection;
  get(target: SipRemote, onError?: (error: Error) => void): SipConnection | undefined;
  destroy(): void;
}

export interface SipClientTransaction {
  message(response: SipResponse, remote?: SipRemote): void;
  shutdown(): void;
}

export interface SipServerTransaction {
  send(response: SipResponse): void;
  message(request: SipRequest, remote?: SipRemote): void;
  shutdown(): void;
}

export interface SipTransactionLayer {
  createServerTransaction(request: SipRequest, connection: SipConnection): SipServerTransaction;
  /** Sets a new Via branch (except for CANCEL) and starts Timer A/B or E/F; `callback` gets every response. */
  createClientTransaction(
    connection: SipConnection,
    request: SipRequest,
    callback: (response: SipResponse) => void,
  ): SipClientTransaction;
  getServer(message: SipMessage): SipServerTransaction | undefined;
  getClient(message: SipMessage): SipClientTransaction | undefined;
  destroy(): void;
}

/** Options of `sip.makeTransport` that the bridge passes on. */
export interface SipTransportOptions {
  address?: string;
  port?: number;
  publicAddress?: string;
  udp?: boolean;
  tcp?: boolean;
  rport?: boolean;
}

/** The exports of `sip` the bridge calls. */
export interface SipStack {
  makeTransport(
    options: SipTransportOptions,
    onMessage: (message: SipMessage, remote: SipRemote, stream?: unknown) => void,
  ): SipTransport;
  makeTransactionLayer(
    options: { readonly 'max-forwards'?: number },
    open: (target: SipRemote, onError?: (error: Error) => void) => SipConnection,
  ): SipTransactionLayer;
  makeResponse(
    request: SipRequest,
    status: number,
    reason?: string,
    extension?: { headers?: SipHeaders; content?: string },
  ): SipResponse;
  makeStreamParser(
    onMessage: (message: SipMessage) => void,
    onFlood?: () => void,
    maxBytesHeaders?: number,
    maxContentLength?: number,
  ): (data: string) => void;
  stringify(message: SipMessage): string;
  stringifyUri(uri: string | SipUriObject): string;
  parseUri(text: string | SipUriObject): SipUriObject | undefined;
  parse(data: string | Buffer): SipMessage | undefined;
  copyMessage(message: SipMessage, deep?: boolean): SipMessage;
}

export function isRequest(message: SipMessage): message is SipRequest {
  return typeof (message as SipRequest).method === 'string';
}
