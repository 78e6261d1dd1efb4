/**
 * Errors of @dnscore/sip-bridge. Each extends the core's DnsError (or one of its subclasses)
 * and has a stable `code`: match on the code, not on the message.
 */
import { DnsError, InvalidArgumentError, StateError } from '@dnscore/core';

/** Base of the errors of the bridge. */
export class SipBridgeError extends DnsError {
  override name = 'SipBridgeError';
  override readonly code: string = 'BRIDGE_ERR';
}

/** A message the bridge cannot send: no SIP URI to route on, a missing Call-ID, CSeq, From or To. */
export class InvalidSipMessageError extends InvalidArgumentError {
  override name = 'InvalidSipMessageError';
  override readonly code = 'BRIDGE_ERR_INVALID_MESSAGE';
}

/** A CANCEL (or ACK) whose Via branch names no transaction the bridge sent: there is no target to keep. */
export class UnknownTransactionError extends SipBridgeError {
  override name = 'UnknownTransactionError';
  override readonly code = 'BRIDGE_ERR_NO_TRANSACTION';
  constructor(readonly branch: string) {
    super(
      `no client transaction with branch "${branch}": a CANCEL or non-2xx ACK must follow a request the bridge sent`,
    );
  }
}

/**
 * A CANCEL that was never sent: its INVITE got a final response, or none at all, before any
 * provisional one (RFC 3261 section 9.1: a CANCEL waits for a provisional response, and one
 * after a final response is a no-op). The INVITE's own report says how it ended.
 */
export class CancelNotSentError extends SipBridgeError {
  override name = 'CancelNotSentError';
  override readonly code = 'BRIDGE_ERR_CANCEL_NOT_SENT';
}

/** A try failed below SIP: connection refused or reset, TLS handshake or certificate failure. */
export class SipTransportError extends SipBridgeError {
  override name = 'SipTransportError';
  override readonly code = 'BRIDGE_ERR_TRANSPORT';
  constructor(
    message: string,
    /** "udp 192.0.2.1 5060". */
    readonly destination: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The local address and port the bridge should listen on are taken or cannot be bound. */
export class LocalBindError extends SipBridgeError {
  override name = 'LocalBindError';
  override readonly code = 'BRIDGE_ERR_LOCAL_BIND';
}

/** The bridge was closed: nothing more is sent. */
export class BridgeClosedError extends StateError {
  override name = 'BridgeClosedError';
  override readonly code = 'BRIDGE_ERR_CLOSED';
}
