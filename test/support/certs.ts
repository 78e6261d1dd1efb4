/**
 * Test certificates made by the tests with openssl: a self-signed EC certificate per call, for
 * the names and IP addresses given, valid for a day. The client trusts it by passing it as its CA.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificate {
  readonly key: string;
  readonly cert: string;
}

export function makeCertificate(subject: {
  readonly dns?: readonly string[];
  readonly ip?: readonly string[];
}): TestCertificate {
  const san = [...(subject.dns ?? []).map((d) => `DNS:${d}`), ...(subject.ip ?? []).map((i) => `IP:${i}`)].join(',');
  if (san === '') throw new Error('a test certificate needs at least one name or address');
  const dir = mkdtempSync(join(tmpdir(), 'dnscore-cert-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  const cn = subject.dns?.[0] ?? subject.ip![0]!;
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${cn}`,
      '-addext',
      `subjectAltName=${san}`,
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
}
