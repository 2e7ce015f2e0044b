import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * `npm run test:shuffle`: the tests of each file in a random order (the seed is printed; repeat a
 * run with TEST_SEED=<seed>), to find a test that leans on one before it. Every test must pass
 * alone and in any order.
 */
export default mergeConfig(
  base,
  defineConfig({
    test: {
      sequence: {
        shuffle: { files: false, tests: true },
        seed: Number(process.env.TEST_SEED ?? Date.now() % 1_000_000),
      },
    },
  }),
);
