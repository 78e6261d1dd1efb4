/**
 * The page in a real browser (Debian's chromium through playwright-core): load it, run the
 * walk-through example, read the steps and targets, draw again, chart the shares, take sip1 down
 * and read the ladder, break the zone and see the error at its line; by keyboard, with labels,
 * contrast, a phone width, nothing loaded from elsewhere. One screenshot per view in test/artifacts/.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningServer } from '@dnscore/serve';
import { launchChromium, type LaunchedBrowser } from './support/browser.js';
import { call, exampleServer, postJson } from './support/http.js';
import { zoneText } from './support/zones.js';

// A browser on a shared two-core machine: each step may take seconds, none is timed.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });

const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));
const EXAMPLE = zoneText('../../../../examples/zones/biloxi.example');

let server: RunningServer;
let browser: LaunchedBrowser;
let stop: () => Promise<void>;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const started = await exampleServer();
  server = started.server;
  browser = await launchChromium();
  stop = async () => {
    await browser.close();
    await server.close();
    await started.backend.close();
  };
});
afterAll(async () => stop?.());

/** A fresh page on the server, with every request and console error recorded. */
async function open(viewport?: { width: number; height: number }) {
  const page = await browser.context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
  return { page, requests, errors };
}

/** Waits until every answer of the last action is drawn (the page marks itself busy meanwhile). */
const settled = (page: Page) => page.waitForSelector('body:not([data-busy])', { state: 'attached' });

const cells = (page: Page, table: string) =>
  page.$$eval(`#${table} tbody tr`, (rows) =>
    rows.map((r) =>
      [...r.querySelectorAll('td, th')].map((c) => (c.querySelector('select') ? '' : (c.textContent ?? '').trim())),
    ),
  );

/** Unchecks TCP and TLS by keyboard: Tab from the URI to each box, Space to toggle. */
async function udpOnlyByKeyboard(page: Page): Promise<void> {
  await page.focus('#uri');
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe('udp');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Space');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Space');
  expect(
    await page.$$eval('input[name="transport"]:checked', (b) => b.map((i) => (i as HTMLInputElement).value)),
  ).toEqual(['udp']);
}

describe('the page', () => {
  it('steps through the walk-through zone: NAPTR -> SRV -> A, the rule, the targets', async () => {
    const { page, requests, errors } = await open();
    expect(await page.title()).toBe('dnscore: where does a SIP request go? (RFC 3263 step-through)');
    expect(await page.inputValue('#zone')).toBe(EXAMPLE);
    await page.focus('#uri');
    await page.keyboard.press('Enter');
    await settled(page);
    await page.waitForSelector('#targets tbody tr');
    const steps = await cells(page, 'steps');
    expect(steps.map((r) => r[1])).toEqual([
      'note',
      'NAPTR biloxi.example',
      'SRV _sips._tcp.biloxi.example',
      'SRV _sip._tcp.biloxi.example',
      'SRV _sip._udp.biloxi.example',
      'AAAA biloxi.example',
      'A biloxi.example',
      'additional used',
      'additional used',
      'additional used',
      'NAPTR chosen (TLS)',
      'NAPTR ignored (TCP)',
      'NAPTR ignored (UDP)',
      'rule naptr applies -> TLS',
    ]);
    expect(steps[1]![0]).toBe('1');
    expect(steps[1]![2]).toContain('50 50 "s" "SIPS+D2T" "" _sips._tcp.biloxi.example.');
    expect(steps[11]![2]).toContain('order 90 is not the lowest usable order 50');
    const targets = await cells(page, 'targets');
    expect(targets.map((t) => t.slice(1, 8))).toEqual(
      expect.arrayContaining([
        ['TLS', '203.0.113.11', '5061', '10', '60', 'sip1.biloxi.example', 'naptr'],
        ['TLS', '203.0.113.12', '5061', '10', '40', 'sip2.biloxi.example', 'naptr'],
      ]),
    );
    expect(targets).toHaveLength(3);
    expect(targets[2]!.slice(0, 10)).toEqual([
      '3',
      'TLS',
      '198.51.100.50',
      '5061',
      '20',
      '0',
      'backup.biloxi.example',
      'naptr',
      '3600 s',
      'insecure',
    ]);
    expect(await page.textContent('#summary')).toBe(
      '3 targets for sip:bob@biloxi.example, first over TLS; 6 questions asked.',
    );
    expect(await page.textContent('#warnings')).toBe('None: nothing to fix.');
    // Draw again: a new draw, backup still last.
    await page.click('#draw-again');
    await settled(page);
    expect((await cells(page, 'targets'))[2]![6]).toBe('backup.biloxi.example');
    await page.screenshot({ path: `${ARTIFACTS}step-through.png`, fullPage: true });
    expect(errors).toEqual([]);
    expect(requests.every((u) => u.startsWith(server.url) || u.startsWith('data:'))).toBe(true);
  });

  it('charts N draws against the exact chance of the RFC 2782 draw, as the API gives it', async () => {
    const { page, errors } = await open();
    await page.fill('#seed', '11');
    await page.click('#run');
    await settled(page);
    await page.waitForSelector('#targets tbody tr');
    await page.fill('#draws-n', '1000');
    await page.click('#draws-form button');
    await settled(page);
    await page.waitForSelector('#shares:not([hidden]) tbody tr');
    const api = (
      await postJson(server, '/api/draws', { uri: 'sip:bob@biloxi.example', zone: EXAMPLE, seed: 11, n: 1000 })
    ).json();
    const pct = (n: number) => `${((100 * n) / 1000).toFixed(1)}%`;
    expect(await cells(page, 'shares')).toEqual([
      [
        'sip1.biloxi.example',
        '10',
        '60',
        String(api.first['sip1.biloxi.example']),
        pct(api.first['sip1.biloxi.example']),
        '121/202 = 59.9%',
      ],
      [
        'sip2.biloxi.example',
        '10',
        '40',
        String(api.first['sip2.biloxi.example']),
        pct(api.first['sip2.biloxi.example']),
        '81/202 = 40.1%',
      ],
      ['backup.biloxi.example', '20', '0', '0', '0.0%', '0/202 = 0.0%'],
    ]);
    expect(api.first['sip1.biloxi.example'] + api.first['sip2.biloxi.example']).toBe(1000);
    expect(await page.locator('#chart svg rect').count()).toBe(6);
    await page.locator('#chart').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}shares.png`, fullPage: true });
    expect(errors).toEqual([]);
  });

  it('takes sip1 down (silent): the ladder and all steps as text, from the cursor and penalty box', async () => {
    // A seed whose first UDP draw puts sip1 first, found through the API the page uses.
    let seed = 0;
    for (let s = 1; s < 50 && seed === 0; s++) {
      const probe = (
        await postJson(server, '/api/failover', {
          uri: 'sip:bob@biloxi.example',
          zone: EXAMPLE,
          transports: ['udp'],
          seed: s,
          requests: 1,
        })
      ).json();
      if (probe.requests[0].attempts[0].lane === 'udp 203.0.113.11 5060') seed = s;
    }
    expect(seed).toBeGreaterThan(0);
    const { page, errors } = await open();
    await udpOnlyByKeyboard(page);
    await page.fill('#seed', String(seed));
    await page.focus('#run');
    await page.keyboard.press('Enter');
    await settled(page);
    await page.waitForSelector('#targets tbody tr');
    expect((await cells(page, 'targets'))[0]!.slice(1, 4)).toEqual(['UDP', '203.0.113.11', '5060']);
    await page.selectOption('#targets select[data-address="203.0.113.11"]', 'silent');
    await page.focus('#run-failover');
    await page.keyboard.press('Enter');
    await settled(page);
    await page.waitForSelector('#ladder svg');
    // The text view opens from the keyboard.
    await page.focus('#ladder-text-box summary');
    await page.keyboard.press('Enter');
    expect(await page.getAttribute('#ladder-text-box', 'open')).toBe('');
    const text = (await page.textContent('#ladder-text'))!.split('\n').map((l) => l.trim());
    const sip1 = 'UDP 203.0.113.11:5060 (sip1.biloxi.example)';
    const sip2 = 'UDP 203.0.113.12:5060 (sip2.biloxi.example)';
    expect(text).toEqual([
      '0 s  request 1: INVITE sip:bob@biloxi.example',
      `0 s  -> ${sip1}: INVITE (sip1.biloxi.example)`,
      `0.5 s  -> ${sip1}: INVITE retransmission 1 (Timer A 0.5 s)`,
      `1.5 s  -> ${sip1}: INVITE retransmission 2 (Timer A 1 s)`,
      `3.5 s  -> ${sip1}: INVITE retransmission 3 (Timer A 2 s)`,
      `6 s     ${sip1}: no response within 6 s: the per-target timer fires`,
      `6 s     ${sip1}: to the penalty box until 66 s (timeout)`,
      `6 s  -> ${sip2}: INVITE (sip2.biloxi.example)`,
      `6.01 s  <- ${sip2}: 100 Trying`,
      `6.04 s  <- ${sip2}: 200 OK`,
      `6.04 s  -> ${sip2}: ACK`,
      // The next request: sip1 is in the penalty box, so sip2 is tried first.
      '7.04 s  request 2: INVITE sip:bob@biloxi.example',
      `7.04 s     ${sip1}: in the penalty box until 66 s: tried last`,
      `7.04 s  -> ${sip2}: INVITE (sip2.biloxi.example)`,
      `7.05 s  <- ${sip2}: 100 Trying`,
      `7.08 s  <- ${sip2}: 200 OK`,
      `7.08 s  -> ${sip2}: ACK`,
      `request 1: answered by ${sip2}`,
      `request 2: answered by ${sip2}`,
    ]);
    // The ladder draws one arrow per message and marks sip1's lane as down.
    const svgText = await page.locator('#ladder svg').textContent();
    expect(svgText).toContain('UDP 203.0.113.11:5060 (silent)');
    expect(await page.locator('#ladder svg line[stroke-dasharray="5 3"]').count()).toBe(3);
    await page.locator('#ladder').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}failover.png`, fullPage: true });
    expect(errors).toEqual([]);
  });

  it('shows a zone error at its line, and clears it once fixed', async () => {
    const { page } = await open();
    const line = EXAMPLE.split('\n').findIndex((l) => l.startsWith('sip1')) + 1;
    await page.fill('#zone', EXAMPLE.replace('203.0.113.11', '203.0.113.300'));
    await page.click('#run');
    await settled(page);
    await page.waitForSelector('#zone-error:not([hidden])');
    expect(await page.textContent('#zone-error')).toBe(`Line ${line}: "203.0.113.300" is not an IPv4 address`);
    expect(await page.getAttribute('#zone', 'aria-invalid')).toBe('true');
    expect(await page.getAttribute('#gutter .bad', 'data-line')).toBe(String(line));
    const selected = await page.$eval('#zone', (z) => {
      const t = z as HTMLTextAreaElement;
      return t.value.slice(t.selectionStart, t.selectionEnd);
    });
    expect(selected).toBe('sip1        IN  A     203.0.113.300');
    await page.screenshot({ path: `${ARTIFACTS}zone-error.png`, fullPage: true });
    await page.fill('#zone', EXAMPLE);
    await page.click('#run');
    await settled(page);
    await page.waitForSelector('#zone-error[hidden]', { state: 'attached' });
    expect(await page.getAttribute('#zone', 'aria-invalid')).toBe('false');
  });

  it('puts the check beside the steps: a port in the URI', async () => {
    const { page } = await open();
    await page.fill('#uri', 'sip:bob@biloxi.example:5060');
    await page.click('#run');
    await settled(page);
    const items = await page.$$eval('#warnings li', (li) => li.map((l) => l.textContent ?? ''));
    expect(items[0]).toMatch(/^warning the URI gives port 5060: NAPTR and SRV are not used/);
    expect(
      items.some(
        (i) => i.startsWith('warning the URI gives port 5060: clients skip NAPTR and SRV') && i.includes('[uri-port]'),
      ),
    ).toBe(true);
  });
});

describe('the page: access', () => {
  it('labels every control, keeps text contrast at 4.5:1 or more, and fits a phone', async () => {
    const { page, errors } = await open({ width: 375, height: 812 });
    await page.click('#run');
    await settled(page);
    await page.waitForSelector('#targets tbody tr');
    const unlabeled = await page.$$eval('input, select, textarea, button', (controls) =>
      controls
        .filter((c) => {
          const named =
            (c as HTMLInputElement).labels?.length ||
            c.getAttribute('aria-label') ||
            (c.tagName === 'BUTTON' && c.textContent?.trim());
          return !named;
        })
        .map((c) => c.outerHTML.slice(0, 80)),
    );
    expect(unlabeled).toEqual([]);
    const ratios = await page.$$eval('body, .help, button#run, thead th, #summary, label', (nodes) => {
      const rgb = (s: string) => (s.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
      const lum = (c: number[]) =>
        c
          .map((v) => v / 255)
          .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
          .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i]!, 0);
      const background = (n: Element): string => {
        for (let e: Element | null = n; e; e = e.parentElement) {
          const bg = getComputedStyle(e).backgroundColor;
          if (bg && bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') return bg;
        }
        return 'rgb(255, 255, 255)';
      };
      return nodes.map((n) => {
        const [a, b] = [lum(rgb(getComputedStyle(n).color)), lum(rgb(background(n)))];
        return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      });
    });
    expect(Math.min(...ratios)).toBeGreaterThanOrEqual(4.5);
    // Live DNS: the zone editor goes away and the server's backend answers.
    await page.check('input[name="source"][value="live"]');
    expect(await page.isHidden('#zone-field')).toBe(true);
    expect(await page.textContent('#backend')).toBe('zone');
    await page.fill('#uri', 'sip:bob@biloxi.example;transport=udp');
    await page.click('#run');
    await settled(page);
    expect((await cells(page, 'targets')).map((t) => t[2])).toEqual(
      expect.arrayContaining(['203.0.113.11', '203.0.113.12', '198.51.100.50']),
    );
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(375);
    await page.screenshot({ path: `${ARTIFACTS}phone.png`, fullPage: true });
    expect(errors).toEqual([]);
  });

  it('weighs little: the page, its script and its style under 50 KB, nothing from elsewhere', async () => {
    let bytes = 0;
    for (const path of ['/', '/app.js', '/style.css'])
      bytes += Number((await call(server, 'HEAD', path)).headers['content-length']);
    expect(bytes).toBeLessThan(50_000);
    const page = await call(server, 'GET', '/');
    expect(page.body).not.toMatch(/https?:\/\//);
  });
});
