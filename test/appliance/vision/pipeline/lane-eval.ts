import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createDetector } from '../../../../appliance/vision/detect/detector.ts';
import { loadModel } from '../../../../appliance/vision/detect/model.ts';
import { createLaneAnalytics, type LaneEvent } from '../../../../appliance/vision/drive-thru/lane.ts';
import { createTracker, trackerOptionsFromSettings } from '../../../../appliance/vision/track/index.ts';
import { evaluateMot } from '../../../../appliance/vision/track/mot-metrics.ts';
import { type Box, type Detection, iou } from '../../../../appliance/vision/types.ts';
import { writeLaneClip } from '../../../../scripts/vision/world/lane-clip.ts';
import { DEFAULT_LANE_CONFIG } from '../../../../scripts/vision/world/simulator.ts';
import { worldLane } from '../support/world-lane.ts';
import { decodeFrames } from './decode.ts';

const MODEL = join(import.meta.dirname, '../../../../models/vehicles');
const WIDTH = 640;
const HEIGHT = 360;
const FPS = 10;
const SECONDS = 300;
/** Objects hidden beyond this share are not expected of a detector: ignored, neither hit nor miss. */
const MIN_VISIBLE = 0.4;

/**
 * The shipped vehicle model on a held-out synthetic clip (seeds 5 and 6, one test file each so the
 * two run side by side): rendered, encoded and decoded by the real ffmpeg, detected by the real
 * onnxruntime, tracked and zoned by the appliance's code with the camera defaults
 * (`min_confidence` 0.8, `iou_threshold` 0.5), and scored against the world's truth.
 */
export function describeLaneEval(seed: number) {
  describe(`the vehicle model, tracker and lane analytics on a held-out synthetic drive-thru clip (seed ${seed})`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'lane-eval-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    async function evaluate() {
      const clip = await writeLaneClip({
        config: { ...DEFAULT_LANE_CONFIG, seed, seconds: SECONDS, fps: FPS },
        width: WIDTH,
        height: HEIGHT,
        outDir: dir,
        name: `lane-${seed}`,
      });
      const detector = await createDetector(await loadModel(MODEL), {
        maxBatch: 8,
        log: pino({ level: 'silent' }),
      });
      const tracker = createTracker(
        trackerOptionsFromSettings({
          fps: FPS,
          min_confidence: 0.8,
          track_timeout_seconds: 2,
          vehicleClasses: [0],
        }),
      );
      const lane = createLaneAnalytics(worldLane(WIDTH, HEIGHT));
      const completions: Array<Extract<LaneEvent, { kind: 'completed' }>> = [];
      lane.onEvent((event) => {
        if (event.kind === 'completed') completions.push(event);
      });
      const scored: Parameters<typeof evaluateMot>[0][number][] = [];
      const queue: number[] = [];
      // Which truth car each track follows most (IoU over 0.5), to compare each car's time.
      const votes = new Map<number, Map<number, number>>();
      function step(detections: Detection[], index: number) {
        const vehicles = detections.filter((d) => d.className === 'vehicle');
        const { tracks, removed } = tracker.update(vehicles, index);
        const truthFrame = clip.truth.frames[index]!;
        lane.update(tracks, truthFrame.t, removed);
        if (index % FPS === 0) queue.push(lane.status(truthFrame.t).queue_length);
        const truth = truthFrame.objects.filter((o) => o.class === 'vehicle');
        for (const track of tracks) {
          const best = truth.find((o) => iou(o.box, track.box) > 0.5);
          if (!best) continue;
          const tally = votes.get(track.trackId) ?? new Map<number, number>();
          tally.set(best.id, (tally.get(best.id) ?? 0) + 1);
          votes.set(track.trackId, tally);
        }
        scored.push({
          groundTruth: truth.filter((o) => o.visible >= MIN_VISIBLE).map((o) => ({ id: o.id, box: o.box })),
          hypotheses: tracks.map((t) => ({ id: t.trackId, box: t.box })),
          ignored: truth.filter((o) => o.visible < MIN_VISIBLE).map((o) => o.box as Box),
        });
      }
      let index = 0;
      try {
        for await (const batch of decodeFrames(clip.video, WIDTH, HEIGHT)) {
          const results = await Promise.all(
            batch.map((data) =>
              detector.detect({ data, width: WIDTH, height: HEIGHT }, { floor: 0.1, iouThreshold: 0.5 }),
            ),
          );
          for (const result of results) {
            step(result.detections, index);
            index += 1;
          }
        }
      } finally {
        await detector.close();
      }
      expect(index).toBe(clip.truth.frames.length);
      const mot = evaluateMot(scored);
      // The first second is the pipeline's warm-up: a track is confirmed after min_track_length frames.
      const seconds = queue.slice(1);
      const exact =
        seconds.filter((n, i) => n === clip.truth.queue_length_per_second[i + 1]).length / seconds.length;
      const waitErrors: number[] = [];
      for (const completion of completions) {
        const carId = [...(votes.get(completion.trackId) ?? new Map<number, number>())].sort(
          (a, b) => b[1] - a[1],
        )[0]?.[0];
        const car = clip.truth.cars.find((c) => c.id === carId);
        // Cars already in the lane when the clip starts were never seen entering it.
        if (car?.waits.total === undefined || (car.zones.entry?.enter ?? -1) < 0) continue;
        waitErrors.push(Math.abs(completion.totalSeconds - car.waits.total));
      }
      return { mot, exact, waitErrors };
    }

    it('tracks the cars (MOTA, IDF1 ≥ 0.90), counts the queue (exact ≥ 95% of seconds), times each car (mean error ≤ 2 s)', async () => {
      const { mot, exact, waitErrors } = await evaluate();
      const mean = waitErrors.reduce((a, b) => a + b, 0) / waitErrors.length;
      const figures = `seed ${seed}: MOTA ${mot.mota.toFixed(3)} IDF1 ${mot.idf1.toFixed(3)} misses ${mot.misses} FP ${mot.falsePositives} switches ${mot.idSwitches}; queue exact ${(exact * 100).toFixed(1)}%; ${waitErrors.length} cars timed, mean wait error ${mean.toFixed(2)} s`;
      console.log(figures);
      expect(mot.mota, figures).toBeGreaterThanOrEqual(0.9);
      expect(mot.idf1, figures).toBeGreaterThanOrEqual(0.9);
      expect(exact, figures).toBeGreaterThanOrEqual(0.95);
      expect(waitErrors.length, figures).toBeGreaterThanOrEqual(5);
      expect(mean, figures).toBeLessThanOrEqual(2);
    }, 240_000);
  });
}
