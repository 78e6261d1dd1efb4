// Measurements, not tests: `UV_THREADPOOL_SIZE=16 npx vitest run --config bench/vitest.config.ts`.
import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../../vitest.shared.js';

export default mergeConfig(
  shared,
  defineConfig({ test: { include: ['bench/**/*.measure.ts'], testTimeout: 600_000, hookTimeout: 60_000 } }),
);
