/**
 * createContext against real libunbound: options are applied and finalized at construction,
 * and whatever libunbound refuses, at once or only when it finalizes, is named.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext, quarantinedContexts } from '../src/context.js';
import { UnboundOptionError } from '../src/errors.js';
import { UnboundResolver } from '../src/unbound-resolver.js';
import { planContext, type UnboundOptions } from '../src/options.js';
import { requiredAddon } from './support/addon.js';

const addon = requiredAddon();
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'dnscore-context-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BASE: UnboundOptions = { hosts: false, resolvConf: false, trustAnchors: [] };

function refusal(options: UnboundOptions): UnboundOptionError {
  try {
    createContext(addon, planContext({ ...BASE, ...options }).steps);
  } catch (error) {
    expect(error).toBeInstanceOf(UnboundOptionError);
    return error as UnboundOptionError;
  }
  throw new Error('not refused');
}

describe('createContext, nominal', () => {
  it('finalizes at construction: no option can change afterwards', () => {
    const context = createContext(addon, planContext({ ...BASE, options: { 'val-log-level': 2 } }).steps);
    expect(() => context.setOption('verbosity', '1')).toThrow('libunbound: setting change after finalize (-6)');
  });

  it('reads hosts, resolv.conf and trust-anchor files when they exist', async () => {
    const hosts = join(dir, 'hosts');
    writeFileSync(hosts, '192.0.2.7 pbx.lab.example\n');
    const resolv = join(dir, 'resolv.conf');
    writeFileSync(resolv, 'nameserver 127.0.0.1\n');
    const anchors = join(dir, 'anchors');
    writeFileSync(
      anchors,
      'lab.example. IN DS 1 13 2 0000000000000000000000000000000000000000000000000000000000000000\n',
    );
    const context = createContext(addon, planContext({ hosts, resolvConf: resolv, trustAnchorFiles: [anchors] }).steps);
    const result = await context.resolve('pbx.lab.example', 1, 1);
    // The hosts file became local data: answered without asking anyone.
    expect([result.rcode, result.data.map((d) => [...d])]).toEqual([0, [[192, 0, 2, 7]]]);
    context.close();
  });
});

describe('createContext, off-nominal: the option is named, with libunbound words', () => {
  it('an unknown option name', () => {
    const error = refusal({ options: { 'no-such-option': 'yes' } });
    expect(error.message).toBe(
      'unbound option options["no-such-option"]: libunbound refused it (unknown option or bad value) (libunbound: ' +
        'syntax error (-3))',
    );
    expect(error).toMatchObject({
      option: 'options["no-such-option"]',
      libunboundMessage: 'libunbound: syntax error (-3)',
    });
  });

  it('a bad value', () => {
    expect(refusal({ options: { 'qname-minimisation': 'maybe' } }).option).toBe('options["qname-minimisation"]');
  });

  it('a bad trust anchor, refused only when libunbound finalizes, is found among good ones', () => {
    const good = 'lab.example. IN DS 1 13 2 0000000000000000000000000000000000000000000000000000000000000000';
    const error = refusal({ trustAnchors: [good, 'lab.example. IN DS not a ds'] });
    expect(error.message).toBe(
      'unbound option trustAnchors[1]: libunbound could not apply it (bad record, anchor or module list) ' +
        '(libunbound: initialization failure (-7))',
    );
  });

  it('bad local data', () => {
    expect(
      refusal({ localData: ['goose.feathers 60 IN A 127.0.0.2', 'goose.feathers 60 IN A not-an-address'] }).option,
    ).toBe('localData[1]');
  });

  it('a bad module-config does not crash the process (the failed contexts are kept, never deleted)', () => {
    const before = quarantinedContexts();
    expect(refusal({ options: { 'module-config': 'no-such-module' } }).option).toBe('options["module-config"]');
    expect(quarantinedContexts() - before).toBe(2);
  });

  it('a hosts file that cannot be read', () => {
    const error = refusal({ hosts: join(dir, 'missing-hosts') });
    expect(error).toMatchObject({ option: 'hosts', libunboundMessage: 'libunbound: error reading file (-9)' });
    expect(error.reason).toBe('the file cannot be read');
  });

  it('a trust-anchor file that cannot be read', () => {
    const error = refusal({ trustAnchorFiles: [join(dir, 'missing.ds')] });
    expect(error.option).toBe('trustAnchorFiles[0]');
    expect(error.message).toMatch(/ENOENT: no such file or directory/);
  });

  it('through the resolver: construction throws, naming the option', () => {
    expect(() => new UnboundResolver({ ...BASE, options: { 'infra-host-ttl': 'soon' } })).toThrow(
      'unbound option options["infra-host-ttl"]: libunbound refused it (unknown option or bad value) (libunbound: ' +
        'syntax error (-3))',
    );
  });
});
