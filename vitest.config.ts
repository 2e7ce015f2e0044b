import { configDefaults, defineConfig } from 'vitest/config';
import SlowestFirst from './test/support/sequencer.ts';

/**
 * Tests that keep cameras running (real ffmpeg and onnxruntime for minutes) run after the rest, on
 * their own: on two cores they would otherwise take the CPU the crash and delivery tests time their
 * retries against.
 */
const CAMERA_HEAVY = [
  'test/appliance/vision/pipeline/*-eval*.test.ts',
  'test/appliance/vision/runtime/runtime.test.ts',
  'test/appliance/vision/runtime/live-camera.test.ts',
  'test/appliance/kiosk/ui/*.test.ts',
  // Not cameras, but as hungry: two release builds at once, each gzipping some 190 MB.
  'test/release/*.test.ts',
  // A release build, a cloud and three appliances with their health checks: beside the crash tests
  // at the start of the main group it stretched webhook-crash's drain past its limit.
  'test/e2e/fleet-release.test.ts',
  // Not cameras, but a browser and two processes: the fleet console's tests, after the main group.
  'test/console/ui/*.test.ts',
];

/**
 * Tests that time deliveries against a clock: they run after the main group, one file at a time, so
 * no other suite's load stretches the windows they measure. The crash tests (processes killed
 * mid-work) run in the main group: they wait for states, not instants, and mostly wait on their
 * processes, which leaves CPU to the files beside them.
 */
const TIMING_SENSITIVE = ['test/cloud/webhooks/delivery.test.ts', 'test/cloud/gateway/limits.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    sequence: { sequencer: SlowestFirst },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more workers than that only adds contention for the real databases and servers,
    // but in the main group, whose files wait on databases, processes and sockets much of the
    // time: three workers there keep both cores busy (two left a third of them idle).
    maxWorkers: 2,
    // A worker runs its files one after another in one module graph: a file that builds the cloud
    // no longer imports it afresh (5-15 s of a loaded machine per file) and compiles no validator
    // the files before it compiled. Tests share no state through it: each builds its own stores,
    // apps and servers and closes them.
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/**/*.test.ts'],
          maxWorkers: 3,
          exclude: [...configDefaults.exclude, ...CAMERA_HEAVY, ...TIMING_SENSITIVE],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'timing',
          include: TIMING_SENSITIVE,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: { name: 'cameras', include: CAMERA_HEAVY, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
