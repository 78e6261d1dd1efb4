/** The checks before `sip` parses (issue 21 item 5): each limit passes at its bound and refuses one byte past it. */
import { describe, expect, it } from 'vitest';
import sip from 'sip';
import { InvalidArgumentError } from '@dnscore/core';
import { HeaderScanner, checkDatagram, resolveLimits, type MessageLimits } from '../src/message-guard.js';

const START = 'OPTIONS sip:app@127.0.0.1 SIP/2.0\r\n';
const CORE =
  'Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bKg1\r\nTo: <sip:app@127.0.0.1>\r\nFrom: <sip:t@127.0.0.1>;tag=a\r\n' +
  'Call-ID: g1\r\nCSeq: 1 OPTIONS\r\n';
/** A request with `extra` fields; `length` null: no Content-Length. */
const message = (extra = '', body = '', length: string | null = String(body.length)): string =>
  `${START}${CORE}${extra}${length === null ? '' : `Content-Length: ${length}\r\n`}\r\n${body}`;
const bytes = (text: string): Buffer => Buffer.from(text, 'latin1');
const check = (text: string, limits: MessageLimits = {}) => checkDatagram(bytes(text), resolveLimits(limits));

/** The reason a message is refused, or 'ok'. */
function verdict(text: string, limits: MessageLimits = {}): string {
  const result = check(text, limits);
  return result.ok ? 'ok' : result.rejection.reason;
}

describe('message guard: what passes is handed to sip unchanged', () => {
  it('a plain request passes; the guard finds its header section and Content-Length', () => {
    const text = message('', 'v=0\r\n');
    const result = check(text);
    expect(result).toEqual({ ok: true, headerBytes: text.length - 5, contentLength: 5, messageBytes: text.length });
    expect(sip.parse(bytes(text))).toMatchObject({ method: 'OPTIONS', content: 'v=0\r\n' });
  });

  it('leading CRLFs (RFC 3261 section 7.5) and folded fields pass', () => {
    expect(verdict(`\r\n\r\n${message('Subject: one\r\n two\r\n\tthree\r\n')}`)).toBe('ok');
  });

  it('a datagram without Content-Length passes: its body ends with the datagram (RFC 3261 section 18.3)', () => {
    const text = message('', 'rest', null);
    expect(check(text)).toEqual({
      ok: true,
      headerBytes: text.length - 4,
      contentLength: undefined,
      messageBytes: text.length,
    });
  });

  it('bytes after the Content-Length body are not the message (RFC 3261 section 18.3)', () => {
    const text = message('', 'abcdef', '3');
    expect(check(text)).toEqual({
      ok: true,
      headerBytes: text.length - 6,
      contentLength: 3,
      messageBytes: text.length - 3,
    });
    const empty = message('', 'junk', '0');
    expect(check(empty)).toMatchObject({ ok: true, contentLength: 0, messageBytes: empty.length - 4 });
  });

  it('a datagram that ends before its Content-Length body is refused, with its header section for a 400', () => {
    const text = message('', 'abc', '10');
    expect(check(text)).toEqual({
      ok: false,
      headerBytes: text.length - 3,
      status: 400,
      rejection: {
        reason: 'content-length',
        detail: 'the datagram ends 7 bytes before the end of its Content-Length body',
      },
    });
    expect(verdict(message('', 'abc', '3'))).toBe('ok');
  });
});

describe('message guard: each limit at its bound and one past it', () => {
  it('a whitespace run: 16 bytes pass, 17 are refused; NBSP, VT and folds count as sip reads \\s', () => {
    const at = message(`X-Pad: a${' '.repeat(16)}b\r\n`);
    expect(verdict(at)).toBe('ok');
    expect(sip.parse(bytes(at))?.headers['x-pad']).toBe(`a${' '.repeat(16)}b`);
    expect(verdict(message(`X-Pad: a${' '.repeat(17)}b\r\n`))).toBe('whitespace-run');
    expect(verdict(message(`X-Pad: a${'\xa0'.repeat(9)}\v${' '.repeat(7)}b\r\n`))).toBe('whitespace-run');
    expect(verdict(message(`X-Pad: a${' '.repeat(7)}\r\n${' '.repeat(8)}b\r\n`))).toBe('whitespace-run');
    expect(verdict(message(`X-Pad: a${' '.repeat(6)}\r\n${' '.repeat(8)}b\r\n`))).toBe('ok');
    expect(verdict(message(`X-Pad: a${' '.repeat(32)}b\r\n`), { maxWhitespaceRun: 32 })).toBe('ok');
  });

  it('the issue’s datagram (60 KB of whitespace) is refused after 17 bytes, read once', () => {
    const scanner = new HeaderScanner(resolveLimits());
    expect(scanner.push(bytes(' '.repeat(60_000)))).toBe(-2);
    expect(scanner.rejection?.reason).toBe('whitespace-run');
    expect(scanner.bytes).toBe(17);
  });

  it('a field sip keeps as text: 4,096 bytes pass, 4,097 are refused', () => {
    const field = (n: number): string => `X-Long: ${'a'.repeat(n - 8)}\r\n`;
    expect(verdict(message(field(4096)))).toBe('ok');
    expect(verdict(message(field(4097)))).toBe('line-too-long');
  });

  it('a field sip parses into parts: 1,024 bytes pass, 1,025 are refused, under every name sip gives it', () => {
    const contact = (n: number, name = 'Contact'): string =>
      `${name}: <sip:a@b;x=${'c'.repeat(n - name.length - 14)}>\r\n`;
    expect(contact(1024)).toHaveLength(1026);
    const at = message(contact(1024));
    expect(verdict(at)).toBe('ok');
    expect(sip.parse(bytes(at))?.headers.contact).toHaveLength(1);
    expect(verdict(message(contact(1025)))).toBe('line-too-long');
    expect(verdict(message(contact(1025, 'm')))).toBe('line-too-long');
    expect(verdict(message(contact(1025, 'CONTACT')))).toBe('line-too-long');
    expect(verdict(message(contact(1025, 'Con%74act')))).toBe('line-too-long');
    expect(verdict(message(contact(1025, 'X-Contact')))).toBe('ok');
    expect(verdict(message(contact(2048)), { maxParsedFieldBytes: 2048 })).toBe('parsed-field-budget');
    expect(verdict(message(contact(2048)), { maxParsedFieldBytes: 2048, parsedFieldBudget: 2 ** 23 })).toBe('ok');
  });

  it('the parsed-field budget: the sum of those fields’ lengths squared, passes at its bound', () => {
    const contact = `Contact: <sip:a@b;x=${'c'.repeat(1024 - 21)}>\r\n`;
    const lines = `${CORE}${contact}`.split('\r\n');
    const parsed = lines.filter((line) => /^(Via|To|From|CSeq|Contact):/.test(line));
    expect(parsed).toHaveLength(5);
    const spent = parsed.reduce((sum, line) => sum + line.length ** 2, 0);
    expect(spent).toBeGreaterThan(2 ** 20);
    expect(verdict(message(contact), { parsedFieldBudget: spent })).toBe('ok');
    expect(verdict(message(contact), { parsedFieldBudget: spent - 1 })).toBe('parsed-field-budget');
    // The default (2^21) takes one 1 KiB field and a plain request's, not two.
    expect(verdict(message(contact))).toBe('ok');
    expect(verdict(message(contact + contact))).toBe('parsed-field-budget');
    expect(verdict(message(contact + contact.replace('Contact', 'X-Contact')))).toBe('ok');
  });

  it('header fields: 128 pass, 129 are refused (a folded field counts once)', () => {
    const fields = (n: number): string => Array.from({ length: n }, (_, i) => `X-${i}: ${i}\r\n`).join('');
    // CORE has five fields and Content-Length is one more.
    expect(verdict(message(fields(122)))).toBe('ok');
    expect(verdict(message(fields(123)))).toBe('too-many-headers');
    expect(verdict(message(`${fields(121)}X-F: a\r\n b\r\n c\r\n`))).toBe('ok');
  });

  it('the header section: 8,192 bytes pass, 8,193 are refused', () => {
    /** Fields of exactly n bytes in all (n >= 10), none over the line bound. */
    const filler = (n: number): string => {
      let out = '';
      for (let left = n; left > 0; ) {
        const size = left > 4000 && left - 4000 < 10 ? 3000 : Math.min(left, 4000);
        out += `X-Fill: ${'f'.repeat(size - 10)}\r\n`;
        left -= size;
      }
      return out;
    };
    const room = 8192 - message().length;
    expect(message(filler(room))).toHaveLength(8192);
    expect(verdict(message(filler(room)))).toBe('ok');
    expect(verdict(message(filler(room + 1)))).toBe('headers-too-large');
    expect(verdict(message(filler(room + 1)), { maxHeaderBytes: 8193 })).toBe('ok');
  });

  it('a whole datagram over maxMessageBytes is refused, with its header section for a 513', () => {
    const text = message('', 'x'.repeat(200));
    const headerBytes = text.length - 200;
    expect(check(text, { maxMessageBytes: text.length })).toEqual({
      ok: true,
      headerBytes,
      contentLength: 200,
      messageBytes: text.length,
    });
    expect(check(text, { maxMessageBytes: text.length - 1 })).toMatchObject({
      ok: false,
      headerBytes,
      status: 513,
      rejection: { reason: 'message-too-large' },
    });
  });
});

describe('message guard: framing and syntax sip would misread', () => {
  it('a bare LF or CR in the header section is refused', () => {
    expect(verdict(message('X-A: a\nb\r\n'))).toBe('bare-line-break');
    expect(verdict(message('X-A: a\rb\r\n'))).toBe('bare-line-break');
    expect(verdict(`SIP/2.0 200 OK${' '.repeat(10)}\nx\r\n${CORE}\r\n`)).toBe('bare-line-break');
  });

  it('Content-Length is read as sip reads it (compact l, escaped names) and must be one decimal number', () => {
    expect(check(message('', 'abc', null).replace('\r\n\r\n', '\r\nl: 3\r\n\r\n'))).toMatchObject({
      contentLength: 3,
    });
    expect(check(message('', 'abc', null).replace('\r\n\r\n', '\r\nContent%2DLength: 3\r\n\r\n'))).toMatchObject({
      contentLength: 3,
    });
    expect(check(message('', 'abcdefg', ' 007 '))).toMatchObject({ ok: true, contentLength: 7 });
    expect(verdict(message('', '', '0x10'))).toBe('content-length');
    expect(verdict(message('', '', '1e2'))).toBe('content-length');
    expect(verdict(message('', '', ''))).toBe('content-length');
    expect(verdict(message('l: 0\r\n'))).toBe('content-length');
  });

  it('a field without a colon, or with whitespace in its name, is refused (sip would drop the message)', () => {
    expect(verdict(message('Nonsense\r\n'))).toBe('malformed-header');
    expect(verdict(message('X Y: z\r\n'))).toBe('malformed-header');
    expect(verdict(message('X-Y : z\r\n'))).toBe('ok');
    expect(verdict(`${START}${CORE}`)).toBe('malformed-header');
  });

  it('limits are positive integers', () => {
    expect(() => resolveLimits({ maxHeaders: 0 })).toThrow(InvalidArgumentError);
    expect(() => resolveLimits({ maxLineBytes: 1.5 })).toThrow('maxLineBytes must be a positive integer');
  });
});
