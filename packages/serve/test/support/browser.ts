/**
 * Debian's chromium, driven by playwright-core through its executable path: nothing is
 * downloaded. A fresh profile (--user-data-dir, which playwright passes for a persistent
 * context) per launch; playwright stops the browser on close, SIGINT, SIGTERM and SIGHUP.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface LaunchedBrowser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(viewport = { width: 1280, height: 900 }): Promise<LaunchedBrowser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: run scripts/install-system-deps.sh (it installs Debian's chromium)`);
  const profile = mkdtempSync(join(tmpdir(), 'dnscore-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_FLAGS],
    viewport,
    handleSIGINT: true,
    handleSIGTERM: true,
    handleSIGHUP: true,
  });
  // A shared machine under load: waiting is not timing; a slow page must still be read.
  context.setDefaultTimeout(120_000);
  return {
    context,
    close: async () => {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
