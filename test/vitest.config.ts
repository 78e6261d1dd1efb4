import { mergeConfig } from 'vitest/config';
import shared from '../vitest.shared.js';

// Integration tests sit at the top of test/; test/support holds what starts the servers.
export default mergeConfig(shared, { test: { include: ['*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 } });
