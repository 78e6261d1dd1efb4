import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_ROOT_ANCHORS, DEFAULT_ROOT_DS_FILE, ROOT_KSK_2017_DS, ROOT_KSK_2024_DS } from '../src/defaults.js';
import { defaultRootAnchors, rootDsKeyTag } from '../src/trust-anchors.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'dnscore-anchors-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** The root KSKs' public keys (IANA root-anchors.xml; Debian's root.key). */
const ROOT_KSKS = [
  'AwEAAaz/tAm8yTn4Mfeh5eyI96WSVexTBAvkMgJzkKTOiW1vkIbzxeF3+/4RgWOq7HrxRixHlFlExOLAJr5emLvN7SWXgnLh4+B5xQlNVz8Og8kvAr' +
    'MtNROxVQuCaSnIDdD5LKyWbRd2n9WGe2R8PzgCmr3EgVLrjyBxWezF0jLHwVN8efS3rCj/EWgvIWgb9tarpVUDK/b58Da+sqqls3eNbuv7pr+eoZ' +
    'G+SrDK6nWeL3c6H5Apxz7LjVc1uTIdsIXxuOLYA4/ilBmSVIzuDWfdRUfhHdY6+cn8HFRm+2hM8AnXGXws9555KrUB5qihylGa8subX2Nn6UwN' +
    'R1AkUTV74bU=',
  'AwEAAa96jeuknZlaeSrvyAJj6ZHv28hhOKkx3rLGXVaC6rXTsDc449/cidltpkyGwCJNnOAlFNKF2jBosZBU5eeHspaQWOmOElZsjICMQMC3aeHbGi' +
    'ShvZsx4wMYSjH8e7Vrhbu6irwCzVBApESjbUdpWWmEnhathWu1jo+siFUiRAAxm9qyJNg/wOZqqzL/dL/q8PkcRU5oUKEpUge71M3ej2/7CPqpdV' +
    'wuMoTvoB+ZOT4YeGyxMvHmbrxlFzGOHOijtzN+u1TQNatX2XBuzZNQ1K+s2CXkPIZo7s6JgZyvaBevYtxPvYLw4z9mR7K2vaF18UYH9Z9GNUUe' +
    'ayffKC73PYc=',
];

/** DNSKEY RDATA: flags 257 (KSK), protocol 3, algorithm 8 (RSASHA256), key. */
function dnskeyRdata(key: string): Buffer {
  return Buffer.concat([Buffer.from([0x01, 0x01, 0x03, 0x08]), Buffer.from(key, 'base64')]);
}

/** RFC 4034 Appendix B. */
function keyTag(rdata: Buffer): number {
  let sum = 0;
  for (let i = 0; i < rdata.length; i++) sum += i & 1 ? rdata[i]! : rdata[i]! << 8;
  return (sum + (sum >> 16)) & 0xffff;
}

describe('the built-in root anchors', () => {
  it('are the DS (SHA-256) of the two root KSKs, tags 20326 and 38696 (RFC 4509)', () => {
    const computed = ROOT_KSKS.map((key) => {
      const rdata = dnskeyRdata(key);
      // owner name "." is the single root octet
      const digest = createHash('sha256')
        .update(Buffer.concat([Buffer.from([0]), rdata]))
        .digest('hex')
        .toUpperCase();
      return `. IN DS ${keyTag(rdata)} 8 2 ${digest}`;
    });
    expect(computed).toEqual([ROOT_KSK_2017_DS, ROOT_KSK_2024_DS]);
    expect(BUILT_IN_ROOT_ANCHORS).toEqual([ROOT_KSK_2017_DS, ROOT_KSK_2024_DS]);
  });
});

describe('rootDsKeyTag', () => {
  it('reads the key tag of root DS records in the usual layouts', () => {
    expect(rootDsKeyTag(ROOT_KSK_2024_DS)).toBe(38696);
    expect(
      rootDsKeyTag('. 172800 IN DS 20326 8 2 E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC683457104237C7F8EC8D'),
    ).toBe(20326);
    expect(rootDsKeyTag('.\tIN\tDS\t19036 8 2 49aac11d7b6f6446702e54a1607371607a1a41855200fd2ce1cdde32f24e8fb5')).toBe(
      19036,
    );
  });

  it('ignores anything that is not a root DS', () => {
    expect(rootDsKeyTag('example. IN DS 1 8 2 AB')).toBeUndefined();
    expect(rootDsKeyTag('. IN DNSKEY 257 3 8 AwEAAa96')).toBeUndefined();
    expect(rootDsKeyTag('; a comment')).toBeUndefined();
  });
});

describe('defaultRootAnchors', () => {
  it('this machine: Debian root.ds holds both root KSKs', () => {
    const anchors = defaultRootAnchors();
    expect(anchors.source).toBe(DEFAULT_ROOT_DS_FILE);
    expect(anchors.anchors.map(rootDsKeyTag)).toEqual([20326, 38696]);
  });

  it('a file with KSK-2017 only gets KSK-2024 added (an anchor of 20326 alone is bogus since 2026-10-11)', () => {
    const path = file('old.ds', `; old dns-root-data\n${ROOT_KSK_2017_DS}\n`);
    expect(defaultRootAnchors(path)).toEqual({
      anchors: [ROOT_KSK_2017_DS, ROOT_KSK_2024_DS],
      source: `${path} + built-in key tag 38696`,
    });
  });

  it('the file lines are used as written', () => {
    const line = '. 172800 IN DS 38696 8 2 683D2D0ACB8C9B712A1948B27F741219298D0A450D612C483AF444A4C0FB2B16';
    const path = file('both.ds', `${line}\n${ROOT_KSK_2017_DS} ; trailing comment\n\n`);
    expect(defaultRootAnchors(path)).toEqual({ anchors: [line, ROOT_KSK_2017_DS], source: path });
  });

  it('no file, or a file without root DS records: the built-in anchors', () => {
    expect(defaultRootAnchors(join(dir, 'missing.ds'))).toEqual({ anchors: BUILT_IN_ROOT_ANCHORS, source: 'built-in' });
    expect(defaultRootAnchors(file('junk.ds', 'nothing here\n'))).toEqual({
      anchors: BUILT_IN_ROOT_ANCHORS,
      source: 'built-in',
    });
  });
});
