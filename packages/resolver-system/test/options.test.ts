import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@dnscore/core/plugin';
import {
  validateConfig,
  validateOptions,
  type SystemResolverConfig,
  type SystemResolverOptions,
} from '../src/options.js';

describe('validateOptions, nominal', () => {
  it('accepts every option at its bounds', () => {
    expect(() =>
      validateOptions({
        name: 'system2',
        priority: -5,
        timeoutMs: 1,
        attempts: 100,
        rotate: true,
        maxInFlight: 65_535,
        trustAd: false,
        useHosts: true,
        udpPayloadSize: 512,
        edns: true,
        forceTcp: false,
        recursionDesired: true,
        dnssecRecords: true,
        hostsTtl: 0,
        tcpMemoryMs: 0,
        tcpMemorySize: 0,
        timers: { setTimeout: () => 0, clearTimeout: () => {} },
        clock: { now: () => 0 },
        hostname: 'pbx.biloxi.example',
      }),
    ).not.toThrow();
    expect(() => validateOptions({ udpPayloadSize: 4096 })).not.toThrow();
    expect(() => validateOptions({})).not.toThrow();
  });
});

describe('validateOptions, off-nominal', () => {
  const bad: [SystemResolverOptions, string][] = [
    [{ name: '' }, 'options.name must be a non-empty string, not ""'],
    [{ priority: Number.NaN }, 'options.priority must be a finite number, not NaN'],
    [{ timeoutMs: 0 }, 'options.timeoutMs must be an integer in 1..2147483647, not 0'],
    [{ timeoutMs: 1.5 }, 'options.timeoutMs must be an integer in 1..2147483647, not 1.5'],
    [{ attempts: 0 }, 'options.attempts must be an integer in 1..100, not 0'],
    [{ maxInFlight: 0 }, 'options.maxInFlight must be an integer in 1..65535, not 0'],
    [{ udpPayloadSize: 511 }, 'options.udpPayloadSize must be an integer in 512..4096, not 511'],
    [{ udpPayloadSize: 65535 }, 'options.udpPayloadSize must be an integer in 512..4096, not 65535'],
    [{ hostsTtl: -1 }, 'options.hostsTtl must be an integer in 0..2147483647, not -1'],
    [{ trustAd: 'yes' as unknown as boolean }, 'options.trustAd must be true or false, not "yes"'],
    [{ rotate: 1 as unknown as boolean }, 'options.rotate must be true or false, not 1'],
    [{ timers: {} as never }, 'options.timers must be an object with setTimeout and clearTimeout, not an object'],
    [{ clock: { now: 5 } as never }, 'options.clock must be an object with now(), not an object'],
    [{ maxInFlight: '10' as unknown as number }, 'options.maxInFlight must be an integer in 1..65535, not "10"'],
    [
      { dnssecRecords: true, edns: false },
      'options.dnssecRecords must be false when edns is false (DO travels in the OPT record), not true',
    ],
  ];
  it.each(bad)('refuses %j', (options, message) => {
    expect(() => validateOptions(options)).toThrow(InvalidArgumentError);
    expect(() => validateOptions(options)).toThrow(message);
  });

  it('refuses options that are not an object', () => {
    expect(() => validateOptions(null as never)).toThrow('options must be an object');
  });
});

describe('validateConfig, nominal', () => {
  it('accepts a full config', () => {
    expect(() =>
      validateConfig({
        nameservers: ['127.0.0.1:5300'],
        search: ['biloxi.example.'],
        ndots: 15,
        resolvConf: '/x',
        hosts: '/y',
      }),
    ).not.toThrow();
  });
});

describe('validateConfig, off-nominal', () => {
  const bad: [SystemResolverConfig, RegExp][] = [
    [{ nameservers: [] }, /config\.nameservers must be a non-empty array/],
    [{ nameservers: '127.0.0.1' as never }, /config\.nameservers must be a non-empty array/],
    [{ search: 'biloxi.example' as never }, /config\.search must be an array/],
    [{ search: [''] }, /config\.search must be a domain name, not ""/],
    [{ search: ['.'] }, /config\.search must be a domain name/],
    [{ search: ['a..b'] }, /search domain "a\.\.b": empty label/],
    [{ ndots: 16 }, /config\.ndots must be an integer in 0\.\.15, not 16/],
    [{ resolvConf: '' }, /config\.resolvConf must be a file path/],
    [{ hosts: 5 as never }, /config\.hosts must be a file path, not 5/],
  ];
  it.each(bad)('refuses %j', (config, message) => {
    expect(() => validateConfig(config)).toThrow(InvalidArgumentError);
    expect(() => validateConfig(config)).toThrow(message);
  });
});
