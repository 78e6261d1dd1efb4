/** SRV answers to targets: order, batching of address lookups, duplicates, expansion once. */
import { describe, expect, it } from 'vitest';
import { lines, setup } from './support/fixtures.js';

describe('SRV targets: nominal', () => {
  it('records keep the core order; each expands to its addresses, AAAA first, with priority and weight', async () => {
    const resolution = await setup().locator.resolve('sip:bob@batch.cases.example;transport=udp', {
      stepThrough: true,
    });
    expect(resolution.targets.map((t) => [t.priority, t.weight, t.source])).toEqual([
      [10, 10, 'srv'],
      [10, 10, 'srv'],
      [10, 10, 'srv'],
      [20, 10, 'srv'],
    ]);
    expect(lines(resolution.targets).sort()).toEqual(
      [
        'udp 198.51.100.7:5060 host.other.example',
        'udp [2001:db8:100::8]:5060 edge.provider.other.example',
        'udp 198.51.100.8:5060 edge.provider.other.example',
        'udp 198.51.100.53:5060 ns1.other.example',
      ].sort(),
    );
    const edge = resolution.targets.findIndex((t) => t.host === 'edge.provider.other.example');
    expect(resolution.targets[edge]!.family).toBe(6);
    expect(resolution.targets[edge + 1]!.family).toBe(4);
  });

  it('addresses of targets without additional data are asked all at once, in one round', async () => {
    const { locator, plugin } = setup({ recording: { barrier: 3 } });
    const resolution = await locator.resolve('sip:bob@batch.cases.example;transport=udp;x=1', { stepThrough: true });
    expect(plugin.held).toEqual([
      '_sip._udp.batch.cases.example SRV',
      'batch.cases.example AAAA',
      'batch.cases.example A',
    ]);
    expect(plugin.asked.slice(3).sort()).toEqual(
      [
        'host.other.example AAAA',
        'host.other.example A',
        'edge.provider.other.example AAAA',
        'edge.provider.other.example A',
        'ns1.other.example AAAA',
        'ns1.other.example A',
      ].sort(),
    );
    expect(resolution.roundTrips).toBe(2);
    expect(resolution.steps.filter((s) => s.kind === 'query' && s.round === 2)).toHaveLength(6);
  });

  it('the same address and port twice gives one target, the second is reported', async () => {
    const resolution = await setup().locator.resolve('sip:bob@dup.cases.example;transport=udp', { stepThrough: true });
    expect(lines(resolution.targets)).toEqual(['udp 192.0.2.130:5060 d1.dup.cases.example']);
    expect(resolution.steps).toContainEqual({
      kind: 'skip',
      host: 'd1.dup.cases.example',
      port: 5060,
      transport: 'udp',
      reason: '192.0.2.130 port 5060 is already a target',
    });
  });

  it('an SRV answer looked at by two rules is expanded once: its steps appear once', async () => {
    // fallback-host: the NAPTR branch fails, then the SRV rule looks at the first round again.
    const resolution = await setup().locator.resolve('sip:bob@fallback.cases.example', { stepThrough: true });
    const additional = resolution.steps.filter((s) => s.kind === 'additional');
    expect(additional).toHaveLength(1);
  });
});

describe('SRV targets: off-nominal', () => {
  it('an SRV answer with no records gives no target and no step of its own', async () => {
    const resolution = await setup().locator.resolve('sip:bob@nosrv.cases.example;transport=udp', {
      stepThrough: true,
    });
    expect(resolution.steps.filter((s) => s.kind === 'skip')).toEqual([]);
    expect(resolution.rule).toBe('transport-param');
    expect(resolution.targets.every((t) => t.source === 'host')).toBe(true);
  });
});
