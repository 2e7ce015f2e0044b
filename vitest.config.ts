import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Tests that keep cameras running (real ffmpeg and onnxruntime for minutes) run after the rest, on
 * their own: on two cores they would otherwise take the CPU the crash and delivery tests time their
 * retries against.
 */
const CAMERA_HEAVY = [
  'test/vision/pipeline/*-eval.test.ts',
  'test/vision/runtime/runtime.test.ts',
  'test/vision/runtime/live-camera.test.ts',
  'test/kiosk/ui/*.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more workers than that only adds contention for the real databases and servers.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...CAMERA_HEAVY],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'cameras', include: CAMERA_HEAVY, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
