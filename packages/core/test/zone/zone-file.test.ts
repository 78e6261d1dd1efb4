/**
 * The zone file itself, as the zone resolver reads it: a regular file within a byte limit (a
 * FIFO or a device is refused at once, not waited on or read without end), in strict UTF-8 (a
 * bad octet is an error with its line and column, not a U+FFFD served in its place).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZoneFileError, ZoneResolver } from '@dnscore/core';

const ZONE = '$ORIGIN example.\n$TTL 60\n@ IN SOA ns.example. host.example. 1 2 3 4 5\n';
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'dnscore-zone-file-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The ZoneFileError that loading `file` throws. */
function failure(file: string, options: { maxZoneFileBytes?: number } = {}): ZoneFileError {
  try {
    new ZoneResolver({ files: [file], ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(ZoneFileError);
    return error as ZoneFileError;
  }
  throw new Error('the zone loaded');
}

const records = (zones: ZoneResolver) => zones.zones[0]!.records().map((r) => [r.name, r.type, r.data]);

describe('the zone file: only a regular file, within the byte limit', () => {
  it('a named pipe is refused at once (nothing ever writes to it)', () => {
    const pipe = join(dir, 'pipe.zone');
    execFileSync('mkfifo', [pipe]);
    const error = failure(pipe);
    expect([error.file, error.line, error.reason]).toEqual([pipe, 0, 'cannot read the zone file: not a regular file']);
  });

  it('the zero device is refused, not read without end', () => {
    expect(failure('/dev/zero').reason).toBe('cannot read the zone file: not a regular file');
  });

  it('a file over maxZoneFileBytes is refused, not read', () => {
    const file = join(dir, 'big.zone');
    writeFileSync(file, `${ZONE}; ${'x'.repeat(5000)}\n`);
    expect(failure(file, { maxZoneFileBytes: 4096 }).reason).toBe(
      'the zone file is larger than 4096 bytes (maxZoneFileBytes)',
    );
    expect(records(new ZoneResolver({ files: [file], maxZoneFileBytes: 8192 }))).toHaveLength(1);
  });

  it('a symbolic link to a zone file is followed (only $INCLUDE refuses links)', () => {
    writeFileSync(join(dir, 'real.zone'), `${ZONE}www IN A 192.0.2.1\n`);
    symlinkSync(join(dir, 'real.zone'), join(dir, 'link.zone'));
    expect(records(new ZoneResolver({ files: [join(dir, 'link.zone')] }))).toEqual([
      ['example', 6, expect.anything()],
      ['www.example', 1, '192.0.2.1'],
    ]);
  });
});

describe('the zone file: strict UTF-8', () => {
  it('an octet that is not UTF-8 is an error with its line and column, not U+FFFD in a TXT', () => {
    const file = join(dir, 'latin1.zone');
    writeFileSync(file, Buffer.concat([Buffer.from(`${ZONE}t IN TXT "caf`), Buffer.of(0xe9), Buffer.from('"\n')]));
    const error = failure(file);
    expect([error.line, error.reason]).toEqual([
      4,
      'column 14: octets that are not UTF-8 (write such an octet as \\DDD)',
    ]);
  });

  it.each([
    ['a lone continuation octet', [0x80]],
    ['an overlong form', [0xc0, 0xaf]],
    ['a surrogate', [0xed, 0xa0, 0x80]],
    ['above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['a sequence cut short', [0xe2, 0x82]],
  ])('%s is refused at its column', (_name, octets) => {
    const file = join(dir, 'bad.zone');
    writeFileSync(file, Buffer.concat([Buffer.from(`${ZONE}t IN TXT "`), Buffer.from(octets), Buffer.from('"\n')]));
    expect([failure(file).line, failure(file).reason]).toEqual([
      4,
      'column 11: octets that are not UTF-8 (write such an octet as \\DDD)',
    ]);
  });

  it('an included file with such an octet is named with its own line', () => {
    writeFileSync(
      join(dir, 'bad.inc'),
      Buffer.concat([Buffer.from('; ok\nt IN TXT "'), Buffer.of(0xff), Buffer.from('"\n')]),
    );
    const file = join(dir, 'includes.zone');
    writeFileSync(file, `${ZONE}$INCLUDE bad.inc\n`);
    const error = failure(file);
    expect([error.file, error.line, error.reason]).toEqual([
      join(dir, 'bad.inc'),
      2,
      'column 11: octets that are not UTF-8 (write such an octet as \\DDD)',
    ]);
  });

  it('keeps UTF-8 text and \\DDD octets as they are, and drops a leading byte order mark', () => {
    const file = join(dir, 'utf8.zone');
    writeFileSync(file, `\ufeff${ZONE}t IN TXT "caf\u00e9" "\\233"\n`);
    expect(records(new ZoneResolver({ files: [file] }))[1]).toEqual([
      't.example',
      16,
      [Buffer.from('caf\u00e9'), Buffer.of(0xe9)],
    ]);
  });
});
