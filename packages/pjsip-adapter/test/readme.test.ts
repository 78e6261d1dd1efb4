/** The README's example is test/readme-example.ts, verbatim, and it runs on a zone file. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PjsipTransportType } from '../src/pjsip-types.js';
import { pjsipExample } from './readme-example.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
let zoneFile: string;

beforeAll(() => {
  zoneFile = join(mkdtempSync(join(tmpdir(), 'dnscore-readme-')), 'example.test.zone');
  writeFileSync(
    zoneFile,
    `$ORIGIN example.test.
$TTL 300
@ IN SOA ns hostmaster 1 3600 600 86400 300
_sips._tcp.tls IN SRV 10 0 5061 sip1
sip1 IN A 127.0.6.95
`,
  );
});

describe('README', () => {
  it('shows test/readme-example.ts verbatim', () => {
    const code = readFileSync(new URL('./readme-example.ts', import.meta.url), 'utf8');
    expect(readme).toContain(`\`\`\`ts\n${code}\`\`\``);
  });

  it('the PJSIP example gets TLS entries with priority and weight', async () => {
    expect(await pjsipExample(zoneFile)).toEqual([`${PjsipTransportType.TLS} 127.0.6.95:5061 10/0`]);
  });
});
