import { mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// Four files start nsd (and one libunbound): one file at a time, with room for a slow start.
export default mergeConfig(shared, { test: { fileParallelism: false, hookTimeout: 60_000 } });
