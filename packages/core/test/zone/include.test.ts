/**
 * Issue 21 item 2: what an attacker did with $INCLUDE (read the shadow file or the process
 * environment and have it echoed in the error, grow on the zero device, hang on standard input,
 * multiply nine small files into 10^7 inclusions), each refused with a ZoneFileError that
 * quotes no more than a short, escaped token.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZoneFileError, ZoneResolver, parseZone } from '@dnscore/core';

const SOA = '@ IN SOA ns.example. host.example. 1 2 3 4 5';
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'dnscore-include-'));
  mkdirSync(join(dir, 'zones'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The ZoneFileError that parsing `text` as `zones/main.zone` throws. */
function failure(text: string, options: { maxIncludes?: number; maxIncludeBytes?: number } = {}): ZoneFileError {
  try {
    parseZone(text, {
      file: join(dir, 'zones/main.zone'),
      origin: 'example.',
      includeRoot: join(dir, 'zones'),
      ...options,
    });
  } catch (error) {
    expect(error).toBeInstanceOf(ZoneFileError);
    expect((error as ZoneFileError).code).toBe('DNS_ERR_ZONE_FILE');
    return error as ZoneFileError;
  }
  throw new Error('the zone parsed');
}

describe('$INCLUDE outside the include root', () => {
  it.each([['/etc/shadow'], ['/etc/passwd'], ['/proc/self/environ'], ['../outside.zone']])(
    '%s is refused, its content never read or quoted',
    (target) => {
      writeFileSync(join(dir, 'outside.zone'), 'SECRET-CONTENT IN A 192.0.2.1\n');
      const error = failure(`$TTL 60\n${SOA}\n$INCLUDE ${target}\n`);
      expect(error.line).toBe(3);
      expect(error.reason).toMatch(
        /^\$INCLUDE "[^"]+" refused: it is not below|^\$INCLUDE cannot read "[^"]+": E[A-Z]+$/,
      );
      expect(error.message).not.toMatch(/root:|SECRET|PATH=/);
    },
  );

  it('a symbolic link below the root that leads out of it is refused', () => {
    symlinkSync('/etc/passwd', join(dir, 'zones/passwd.zone'));
    symlinkSync('/dev/zero', join(dir, 'zones/zero.zone'));
    expect(failure('$INCLUDE passwd.zone\n').reason).toMatch(/refused: it is not below/);
    expect(failure('$INCLUDE zero.zone\n').reason).toMatch(/refused: it is not below/);
  });

  it('zone text not read from a file never includes (no include root)', () => {
    expect(() => parseZone(`$TTL 60\n${SOA}\n$INCLUDE /etc/hostname\n`, { file: 'page', origin: 'example.' })).toThrow(
      'page:3: $INCLUDE "/etc/hostname" refused: $INCLUDE is off for zone text not read from a file',
    );
    expect(() => new ZoneResolver({ zones: [{ text: `$ORIGIN example.\n$TTL 60\n${SOA}\n$INCLUDE x\n` }] })).toThrow(
      /\$INCLUDE is off/,
    );
  });
});

describe('$INCLUDE of something that is not a regular file', () => {
  it('the zero device and standard input are refused, not read', () => {
    for (const device of ['/dev/zero', '/dev/stdin', '/dev/null']) {
      expect(() => parseZone(`$INCLUDE ${device}\n`, { file: '/dev/x.zone', includeRoot: '/' })).toThrow(
        // A socket or a terminal as standard input cannot even be opened (ENXIO): refused all the same.
        /^\/dev\/x\.zone:1: \$INCLUDE cannot read "\/dev\/[a-z]+": (not a regular file|E[A-Z]+)$/,
      );
    }
  });

  it('a named pipe below the root is refused at once (no one ever writes to it)', () => {
    execFileSync('mkfifo', [join(dir, 'zones/pipe.zone')]);
    expect(failure('$INCLUDE pipe.zone\n').reason).toBe(
      `$INCLUDE cannot read "${join(dir, 'zones/pipe.zone')}": not a regular file`,
    );
  });

  it('a directory is refused', () => {
    mkdirSync(join(dir, 'zones/sub'));
    expect(failure('$INCLUDE sub\n').reason).toMatch(/: not a regular file$|: EISDIR$/);
  });
});

describe('$INCLUDE bounds', () => {
  it('nine files that include each other ten times stop at the inclusion limit', () => {
    // f0 includes f1 ten times, f1 includes f2 ten times, ... f7 (8 deep): 10^7 inclusions unbounded.
    for (let i = 0; i < 8; i++) {
      const next = i < 7 ? `$INCLUDE f${i + 1}.zone\n`.repeat(10) : 'a IN A 192.0.2.1\n';
      writeFileSync(join(dir, `zones/f${i}.zone`), `; file ${i}\n${next}`);
    }
    const error = failure(`$TTL 60\n${SOA}\n$INCLUDE f0.zone\n`);
    expect(error.reason).toMatch(/^\$INCLUDE "f[1-7]\.zone" refused: more than the allowed inclusions in one zone$/);
  });

  it('depth stays bounded for a file that includes itself', () => {
    writeFileSync(join(dir, 'zones/self.zone'), '$INCLUDE self.zone\n');
    expect(failure('$INCLUDE self.zone\n').reason).toBe('$INCLUDE nested more than 8 deep');
  });

  it('the bytes read through $INCLUDE are bounded, the file not read when over', () => {
    writeFileSync(join(dir, 'zones/big.zone'), `; ${'x'.repeat(5000)}\n`);
    expect(failure('$INCLUDE big.zone\n', { maxIncludeBytes: 4096 }).reason).toBe(
      `$INCLUDE cannot read "${join(dir, 'zones/big.zone')}": over the byte limit`,
    );
    expect(failure('$INCLUDE big.zone\n$INCLUDE big.zone\n', { maxIncludeBytes: 8000 }).reason).toBe(
      `$INCLUDE cannot read "${join(dir, 'zones/big.zone')}": over the byte limit`,
    );
  });

  it('an included file that is not a zone is quoted short and escaped in the error', () => {
    writeFileSync(join(dir, 'zones/junk.zone'), `a IN \u001b[31m${'S'.repeat(10_000)}\u009b2J\n`);
    const error = failure(`$TTL 60\n${SOA}\n$INCLUDE junk.zone\n`);
    expect(error.file).toBe(join(dir, 'zones/junk.zone'));
    expect(error.reason).toBe(`unknown type "\\x1b[31m${'S'.repeat(59)}...(10008 chars)"`);
    expect(error.message.length).toBeLessThan(300);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for them
    expect(error.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });
});

describe('$INCLUDE allowed', () => {
  it('a zone file read by the zone resolver includes files below its own directory', () => {
    writeFileSync(join(dir, 'zones/hosts.inc'), 'www IN A 192.0.2.80\n');
    writeFileSync(join(dir, 'zones/example.zone'), `$ORIGIN example.\n$TTL 60\n${SOA}\n$INCLUDE hosts.inc\n`);
    const zones = new ZoneResolver({ files: [join(dir, 'zones/example.zone')] });
    expect(zones.zones[0]!.records().map((r) => [r.name, r.type])).toEqual([
      ['example', 6],
      ['www.example', 1],
    ]);
  });
});
