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

describe('StreamFramer against sip’s stream parser on mutated streams', () => {
  /** A small seeded generator (mulberry32): the same cases on every run. */
  function random(seed: number): () => number {
    let a = seed;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const PIECES = [
    ' ',
    '\t',
    '\r\n',
    '\r\n ',
    ',',
    ';',
    ':',
    '=',
    '"',
    '<',
    '>',
    '%2D',
    '0',
    '9',
    'l: 3',
    'x',
    '\xa0',
    '\n',
  ];

  it('whenever the guard lets a message through, it is the message sip frames and parses (2,000 cases)', () => {
    const next = random(21);
    let passed = 0;
    for (let n = 0; n < 2000; n++) {
      let first = next() < 0.5 ? request(`m${n}`, 'Subject: s\r\n', 'abc') : response(`m${n}`);
      for (let edits = 1 + Math.floor(next() * 3); edits > 0; edits--) {
        const at = Math.floor(next() * first.length);
        const piece = PIECES[Math.floor(next() * PIECES.length)]!;
        first = next() < 0.7 ? first.slice(0, at) + piece + first.slice(at) : first.slice(0, at) + first.slice(at + 1);
      }
      const text = first + request(`n${n}`);
      const events = frame(text, 1 + Math.floor(next() * 40));
      if (events[0]?.type !== 'message') continue;
      // A message sip cannot parse (a broken start line) is dropped either way; sip's stream parser
      // would then read its body as the start of the next message, the bridge goes on at the next.
      if (!sip.parse(events[0].bytes)) continue;
      passed++;
      // What sip cannot parse is dropped by both (the endpoint ignores an undefined parse).
      const ours = events.map((e) => (e.type === 'message' ? sip.parse(e.bytes) : e.rejection.reason));
      const refused = ours.findIndex((m) => typeof m === 'string');
      const parsed = (refused < 0 ? ours : ours.slice(0, refused)).filter((m) => m !== undefined);
      // Past a refusal the connection is closed; before it, and without one, the same messages.
      expect(parsed).toEqual(refused < 0 ? sipStream(text) : sipStream(text).slice(0, parsed.length));
    }
    expect(passed).toBeGreaterThan(500);
  });
});
