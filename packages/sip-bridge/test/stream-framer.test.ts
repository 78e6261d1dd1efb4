/** TCP framing by Content-Length before `sip` parses (issue 21 item 5). */
import { describe, expect, it } from 'vitest';
import sip from 'sip';
import { resolveLimits } from '../src/message-guard.js';
import { StreamFramer, type FramerEvent } from '../src/stream-framer.js';
import type { SipMessage } from '../src/sip-stack.js';

const request = (id: string, extra = '', body = ''): string =>
  `INVITE sip:app@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/TCP 127.0.0.1:5070;branch=z9hG4bK${id}\r\n` +
  `To: <sip:app@127.0.0.1>\r\nFrom: <sip:t@127.0.0.1>;tag=${id}\r\nCall-ID: ${id}\r\nCSeq: 1 INVITE\r\n${extra}` +
  `Content-Length: ${body.length}\r\n\r\n${body}`;
const response = (id: string): string =>
  `SIP/2.0 180 Ringing\r\nVia: SIP/2.0/TCP 127.0.0.1:5070;branch=z9hG4bK${id}\r\nTo: <sip:app@127.0.0.1>;tag=b\r\n` +
  `From: <sip:t@127.0.0.1>;tag=${id}\r\nCall-ID: ${id}\r\nCSeq: 1 INVITE\r\nl: 0\r\n\r\n`;

/** Feeds `text` in chunks of `size` bytes; returns the events. */
function frame(text: string, size: number, limits = resolveLimits()): FramerEvent[] {
  const framer = new StreamFramer(limits);
  const events: FramerEvent[] = [];
  const data = Buffer.from(text, 'latin1');
  for (let i = 0; i < data.length; i += size) framer.push(data.subarray(i, i + size), (event) => events.push(event));
  return events;
}

/** What `sip`'s own stream parser makes of the same bytes. */
function sipStream(text: string): SipMessage[] {
  const out: SipMessage[] = [];
  sip.makeStreamParser((message) => out.push(message))(text);
  return out;
}

describe('StreamFramer', () => {
  const sdp = 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n';
  const stream =
    `\r\n${request('f1', '', sdp)}\r\n\r\n${response('f1')}` +
    request('f2', `X-Pad: a${' '.repeat(16)}b\r\nSubject: one\r\n two\r\n`) +
    request('f3', '', '\r\n\r\nINVITE x SIP/2.0\r\n\r\n');

  it.each([1, 7, 64, 100_000])(
    'cuts pipelined messages in %i-byte chunks; parsed as sip’s stream parser does',
    (size) => {
      const events = frame(stream, size);
      expect(events.map((e) => e.type)).toEqual(['message', 'message', 'message', 'message']);
      const parsed = events.map((e) => (e.type === 'message' ? sip.parse(e.bytes) : undefined));
      expect(parsed).toEqual(sipStream(stream));
      expect(parsed.map((m) => m?.content)).toEqual([sdp, '', '', '\r\n\r\nINVITE x SIP/2.0\r\n\r\n']);
    },
  );

  it('a message without Content-Length ends the stream (RFC 3261 section 18.3: it cannot be framed)', () => {
    const events = frame(request('f4').replace('Content-Length: 0\r\n', '') + request('f5'), 5);
    expect(events).toEqual([
      {
        type: 'rejected',
        rejection: { reason: 'content-length', detail: 'a message on a stream without Content-Length' },
      },
    ]);
  });

  it('a body past maxMessageBytes is refused when the header section ends, before the body arrives', () => {
    const limits = resolveLimits({ maxMessageBytes: 1000 });
    const head = request('f6').replace('Content-Length: 0', 'Content-Length: 100000000');
    const events = frame(head + 'x'.repeat(50), 3, limits);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event).toMatchObject({ type: 'rejected', rejection: { reason: 'message-too-large' } });
    expect(event?.type === 'rejected' && event.headerSection?.toString('latin1')).toBe(head);
  });

  it('exactly maxMessageBytes passes', () => {
    const text = request('f7', '', 'b'.repeat(100));
    expect(frame(text, 9, resolveLimits({ maxMessageBytes: text.length })).map((e) => e.type)).toEqual(['message']);
    expect(frame(text, 9, resolveLimits({ maxMessageBytes: text.length - 1 }))[0]).toMatchObject({
      type: 'rejected',
      rejection: { reason: 'message-too-large' },
    });
  });

  it('after a rejection nothing more is read', () => {
    const framer = new StreamFramer(resolveLimits());
    const events: FramerEvent[] = [];
    framer.push(Buffer.from(`INVITE x SIP/2.0\r\nX: a${' '.repeat(40)}`), (e) => events.push(e));
    framer.push(Buffer.from(request('f8')), (e) => events.push(e));
    expect(events.map((e) => (e.type === 'rejected' ? e.rejection.reason : e.type))).toEqual(['whitespace-run']);
    expect(framer.reading).toBe(false);
  });
});
