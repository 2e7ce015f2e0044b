import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that took longest on this project's CI machine, slowest first. They start before
 * everything else in their group, so none of them is left running alone at the end while the
 * other workers idle. Vitest orders by the last run's durations only when it has them, which a
 * clean clone does not.
 */
const SLOWEST = [
  'test/e2e/webhook-crash.test.ts',
  'test/e2e/sync-crash.test.ts',
  'test/e2e/alert-escalation-restart.test.ts',
  'test/e2e/fuzz/cloud.test.ts',
  'test/cloud/webhooks/admin-routes.test.ts',
  'test/e2e/sync-convergence.test.ts',
  'test/e2e/npm-start.test.ts',
  'test/appliance/vision/capture/capture.test.ts',
  'test/cloud/ctl/ctl.test.ts',
  'test/e2e/fleet-release.test.ts',
  'test/appliance/vision/runtime/runtime.test.ts',
  'test/appliance/vision/pipeline/lane-eval-seed-5.test.ts',
  'test/appliance/vision/pipeline/lane-eval-seed-6.test.ts',
];

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]) {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = SLOWEST.findIndex((path) => file.moduleId.endsWith(path));
      return index === -1 ? SLOWEST.length : index;
    };
    // Array.prototype.sort is stable: the rest keep the order the base sequencer gave them.
    return sorted.sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || rank(a) - rank(b),
    );
  }
}
