import dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { makeQuery, parseMessage, parseName, wireName } from '@dnscore/core/plugin';
import { inspectResponse } from '../src/response-check.js';

const query = makeQuery('sip1.Biloxi.example', 'A');

function response(overrides: Partial<dnsPacket.Packet> = {}): Buffer {
  return dnsPacket.encode({
    type: 'response',
    id: 4242,
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
    questions: [{ name: 'sip1.biloxi.example', type: 'A', class: 'IN' }],
    answers: [{ type: 'A', name: 'sip1.biloxi.example', ttl: 60, data: '192.0.2.11' }],
    ...overrides,
  });
}

describe('inspectResponse, nominal', () => {
  it('accepts our ID and question, comparing the name case-insensitively', () => {
    const verdict = inspectResponse(response(), 4242, query);
    expect(verdict.kind).toBe('accept');
    if (verdict.kind === 'accept') expect(parseMessage(verdict.packet).answers).toHaveLength(1);
    const upper = response({ questions: [{ name: 'SIP1.BILOXI.EXAMPLE', type: 'A', class: 'IN' }] });
    expect(inspectResponse(upper, 4242, query).kind).toBe('accept');
  });

  it('accepts error rcodes and TC answers: what to do with them is decided later', () => {
    expect(inspectResponse(response({ flags: 2, answers: [] }), 4242, query).kind).toBe('accept');
    expect(inspectResponse(response({ flags: dnsPacket.TRUNCATED_RESPONSE, answers: [] }), 4242, query).kind).toBe(
      'accept',
    );
  });
});

describe('inspectResponse, off-nominal', () => {
  it('refuses another ID', () => {
    expect(inspectResponse(response(), 4243, query).kind).toBe('wrong-id');
  });

  it('refuses another name, type or class, or no question, or two', () => {
    const other = (q: dnsPacket.Question) => inspectResponse(response({ questions: [q] }), 4242, query).kind;
    expect(other({ name: 'sip2.biloxi.example', type: 'A', class: 'IN' })).toBe('wrong-question');
    expect(other({ name: 'sip1.biloxi.example.evil', type: 'A', class: 'IN' })).toBe('wrong-question');
    expect(other({ name: 'sip1.biloxi.example', type: 'AAAA', class: 'IN' })).toBe('wrong-question');
    expect(other({ name: 'sip1.biloxi.example', type: 'A', class: 'CH' })).toBe('wrong-question');
    expect(inspectResponse(response({ questions: [] }), 4242, query).kind).toBe('wrong-question');
    const two = response({
      questions: [
        { name: 'sip1.biloxi.example', type: 'A', class: 'IN' },
        { name: 'sip1.biloxi.example', type: 'A', class: 'IN' },
      ],
    });
    expect(inspectResponse(two, 4242, query).kind).toBe('wrong-question');
  });

  it('does not take a name with a dot inside a label for two labels', () => {
    const dotted = makeQuery('sip1\\.biloxi.example', 'A');
    expect(inspectResponse(response(), 4242, dotted).kind).toBe('wrong-question');
  });

  it('calls short packets, queries and other opcodes garbage', () => {
    expect(inspectResponse(new Uint8Array(11), 0, query).kind).toBe('garbage');
    const asQuery = response();
    asQuery[2] = asQuery[2]! & 0x7f;
    expect(inspectResponse(asQuery, 4242, query).kind).toBe('garbage');
    const notify = response();
    notify[2] = notify[2]! | (4 << 3);
    expect(inspectResponse(notify, 4242, query).kind).toBe('garbage');
  });

  it('calls a cut record or a compression loop after our question malformed', () => {
    const cut = response().subarray(0, response().length - 3);
    const verdict = inspectResponse(cut, 4242, query);
    expect(verdict.kind).toBe('malformed');
    if (verdict.kind === 'malformed') expect(verdict.error.message).toMatch(/RDATA|past the end/);
    const loop = Buffer.from(response());
    const ownerAt = 12 + 'sip1.biloxi.example'.length + 2 + 4;
    loop.writeUInt16BE(0xc000 | ownerAt, ownerAt); // the owner points at itself
    expect(inspectResponse(loop, 4242, query).kind).toBe('malformed');
  });

  it('calls TC with records cut after our question truncated, not malformed', () => {
    const cut = Buffer.from(response());
    cut[2] = cut[2]! | 0x02; // TC
    cut.writeUInt16BE(3, 6); // ANCOUNT 3: one record is there
    const verdict = inspectResponse(cut, 4242, query);
    expect(verdict.kind).toBe('truncated');
    if (verdict.kind === 'truncated') expect(verdict.error.message).toMatch(/answer record owner runs past the end/);
    cut[2] = cut[2]! & ~0x02;
    expect(inspectResponse(cut, 4242, query).kind).toBe('malformed');
  });

  it('calls an unreadable question malformed', () => {
    const packet = Buffer.from(response());
    packet[12] = 0xc0; // a pointer in the question that points forward
    packet[13] = 0xff;
    expect(inspectResponse(packet, 4242, query).kind).toBe('malformed');
  });
});

describe('inspectResponse, a name sent in random case (0x20, wire form)', () => {
  const sentText = 'SiP1.biLOxI.EXamPle';
  const sent = Buffer.from(wireName(parseName(sentText))).toString('latin1'); // as randomizeCase() gives it
  const echoed = (overrides: Partial<dnsPacket.Packet> = {}): Buffer =>
    response({ questions: [{ name: sentText, type: 'A', class: 'IN' }], ...overrides });

  it('accepts the echo, with the question and full copies of the name back in the case asked', () => {
    const answer = echoed({ answers: [{ type: 'A', name: sentText, ttl: 60, data: '192.0.2.11' }] });
    const verdict = inspectResponse(answer, 4242, query, sent);
    expect(verdict.kind).toBe('accept');
    if (verdict.kind !== 'accept') return;
    const message = parseMessage(verdict.packet);
    expect(message.questions.map((q) => q.name)).toEqual(['sip1.Biloxi.example']);
    expect(message.answers.map((r) => r.name)).toEqual(['sip1.Biloxi.example']);
    expect(Buffer.from(verdict.packet).includes(sent, 0, 'latin1')).toBe(false);
  });

  it('refuses our name in another case, or our exact name with another type or class', () => {
    const plain = response();
    expect(inspectResponse(plain, 4242, query, sent).kind).toBe('case-mismatch');
    expect(
      inspectResponse(echoed({ questions: [{ name: sentText, type: 'AAAA', class: 'IN' }] }), 4242, query, sent),
    ).toEqual({ kind: 'wrong-question' });
    expect(
      inspectResponse(echoed({ questions: [{ name: sentText, type: 'A', class: 'CH' }] }), 4242, query, sent),
    ).toEqual({ kind: 'wrong-question' });
  });

  it('calls our exact name cut before its type, or a cut record after it, malformed', () => {
    const whole = echoed();
    expect(inspectResponse(whole.subarray(0, 12 + sent.length + 2), 4242, query, sent).kind).toBe('malformed');
    expect(inspectResponse(whole.subarray(0, whole.length - 3), 4242, query, sent).kind).toBe('malformed');
  });
});
