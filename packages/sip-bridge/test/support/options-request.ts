/** What an OPTIONS request from a test peer says: where it goes, its Via, and who it is from and to. */
export interface OptionsRequest {
  /** The Request-URI, e.g. sip:bridge@127.0.0.1:5060. */
  readonly uri: string;
  /** The Via header's value. */
  readonly via: string;
  /** The host of the To and From URIs. */
  readonly toHost: string;
  readonly fromHost: string;
  readonly callId: string;
}

/** An OPTIONS request as a SIP peer writes it on the wire (CRLF lines, no body). */
export function optionsRequest(request: OptionsRequest): string {
  return [
    `OPTIONS ${request.uri} SIP/2.0`,
    `Via: ${request.via}`,
    'Max-Forwards: 70',
    `To: <sip:bridge@${request.toHost}>`,
    `From: <sip:peer@${request.fromHost}>;tag=p1`,
    `Call-ID: ${request.callId}`,
    'CSeq: 1 OPTIONS',
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');
}
