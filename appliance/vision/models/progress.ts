/** Progress is reported in steps of this much, not per piece of a download. */
const PROGRESS_STEP = 0.05;

/** Reports overall progress only when it moved on by a step (and at the end). */
export function progressReporter(total: number, report: ((fraction: number) => void) | undefined) {
  let done = 0;
  let reported = 0;
  return {
    bytes(received: number) {
      const fraction = total > 0 ? Math.min(1, (done + received) / total) : 1;
      if (fraction - reported < PROGRESS_STEP && fraction < 1) return;
      reported = fraction;
      report?.(fraction);
    },
    finished(size: number) {
      done += size;
    },
    /** The work is over (some models may have been skipped or refused): say so once. */
    end() {
      if (reported < 1) report?.(1);
      reported = 1;
    },
  };
}

export type ProgressReporter = ReturnType<typeof progressReporter>;
