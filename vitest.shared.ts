// One vitest setup for every workspace: tests import the TypeScript sources of
// @dnscore/* (the "source" export condition), so a test never runs stale dist/ code.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    // Hooks start real servers and child processes; on a loaded 2-core CI machine that takes seconds.
    hookTimeout: 60_000,
  },
});
