/**
 * Order verification at the pickup window: a camera's fresh frames read by consensus, compared
 * with the order's items through the menu-to-class mapping, stored with a snapshot and announced
 * as `vision.order_verified` on the store's event feed (the kiosk and the KDS raise a mismatch).
 * People's reviews of verifications give each camera its detection accuracy.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../../shared/clock.ts';
import type { IdGenerator } from '../../../shared/ids.ts';
import type { ApplianceDatabase, ChangeLog } from '../../db/index.ts';
import type { CameraPipeline } from '../pipeline/camera.ts';
import type { SnapshotKind } from '../record/index.ts';
import type { Detection, Frame } from '../types.ts';
import { consensusDetections, type ItemCount, type MenuMapping, verifyOrder } from '../verify/index.ts';
import type { createVisionAlerts } from './alerts.ts';
import type { VisionHistory } from './history.ts';
import { ACCURACY_THRESHOLD } from './minutes.ts';

/** Frames read for one verification: a miss in one frame is outvoted (verify/consensus.ts). */
const VERIFY_FRAMES = 3;
export const VERIFY_TIMEOUT_MS = 5000;
/** Detection accuracy is the share of the last day's reviewed verifications the camera got right… */
const ACCURACY_WINDOW_MS = 86_400_000;
/** …once at least this many were reviewed. */
const MIN_REVIEWS = 10;

export interface VerifyRequest {
  orderId: string;
  cameraId?: string | undefined;
  expected: readonly ItemCount[];
  trigger: 'order_ready' | 'on_demand';
}

export class VisionUnavailableError extends Error {
  override name = 'VisionUnavailableError';
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

type Still = Pick<Frame, 'data' | 'width' | 'height' | 'format'>;

export interface VerifierDeps {
  db: ApplianceDatabase;
  changes: ChangeLog;
  history: VisionHistory;
  alerts: ReturnType<typeof createVisionAlerts>;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  mapping: MenuMapping;
  saveSnapshot(
    cameraId: string,
    kind: SnapshotKind,
    frame: Still,
    boxes: Array<{ box: Detection['box']; label: string }>,
    at: Date,
  ): Promise<string | null>;
  /** The model a camera runs (for its accuracy alert). */
  modelOf(cameraId: string): string;
}

/** An order's items as the camera counts them: quantities of the same name added up. */
export function expectedItems(items: ReadonlyArray<{ name: string; quantity: number }>): ItemCount[] {
  const byName = new Map<string, number>();
  for (const item of items) byName.set(item.name, (byName.get(item.name) ?? 0) + item.quantity);
  return [...byName].map(([name, quantity]) => ({ name, quantity }));
}

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

export function createVerifier(deps: VerifierDeps) {
  const { history, clock, log } = deps;
  return {
    async verify(
      camera: { id: string; minConfidence: number; pipeline: CameraPipeline },
      request: VerifyRequest,
    ) {
      let lastFrame: Pick<Frame, 'data' | 'width' | 'height' | 'format'> | undefined;
      const results = await camera.pipeline
        .inspect(VERIFY_FRAMES, VERIFY_TIMEOUT_MS, (result) => {
          lastFrame = {
            data: Buffer.from(result.frame.data),
            width: result.frame.width,
            height: result.frame.height,
            format: result.frame.format,
          };
        })
        .catch((error: Error) => {
          throw new VisionUnavailableError(
            `The pickup camera gave no picture: ${error.message}`,
            'CAMERA_NOT_RUNNING',
          );
        });
      const minConfidence = camera.minConfidence;
      const detections = consensusDetections(
        results.map((result) => result.candidates),
        { mapping: deps.mapping, minConfidence },
      );
      const verification = verifyOrder({
        expected: request.expected,
        detections,
        mapping: deps.mapping,
        minConfidence,
      });
      const at = clock.now();
      const snapshot =
        lastFrame &&
        (await deps.saveSnapshot(
          camera.id,
          'verification',
          lastFrame,
          verification.detections.map((d) => ({
            box: d.box,
            label: `${d.name}${d.matched ? '' : ' ?'} ${d.confidence.toFixed(2)}`,
          })),
          at,
        ));
      const row = {
        id: deps.newId(),
        order_id: request.orderId,
        camera_id: camera.id,
        trigger: request.trigger,
        verified: verification.verified,
        detections: verification.detections.map(({ name, confidence, matched }) => ({
          name,
          confidence: round(confidence, 3),
          matched,
        })),
        missing_items: verification.missing_items,
        extra_items: verification.extra_items,
        snapshot: snapshot ?? null,
        created_at: at.toISOString(),
      };
      deps.db.transaction(() => {
        history.addVerification(row);
        // The kiosk and the KDS hear it on the store's event feed; a mismatch asks for attention.
        deps.changes.emit('vision.order_verified', {
          verification_id: row.id,
          order_id: row.order_id,
          camera_id: row.camera_id,
          trigger: row.trigger,
          verified: row.verified,
          missing_items: row.missing_items,
          extra_items: row.extra_items,
          snapshot: row.snapshot,
        });
      })();
      if (!row.verified)
        log.warn(
          { orderId: row.order_id, missing: row.missing_items, extra: row.extra_items },
          'order verification: mismatch',
        );
      return { ...row, unverifiable: verification.unverifiable, uncertain: verification.uncertain };
    },

    /**
     * A person says whether the camera got a verification right (the kiosk asks on a mismatch). Over
     * the last day's reviews, with enough of them to mean something, that is the camera's detection
     * accuracy, judged against its thresholds.
     */
    review(verificationId: string, input: { correct: boolean; note?: string | undefined }, by: string) {
      const verification = history.verification(verificationId);
      if (!verification) throw new VisionUnavailableError('Verification not found', 'VERIFICATION_NOT_FOUND');
      const at = clock.now();
      history.review({
        verification_id: verificationId,
        camera_id: verification.camera_id,
        correct: input.correct,
        note: input.note ?? null,
        reviewed_by: by,
        reviewed_at: at.toISOString(),
      });
      const since = new Date(at.getTime() - ACCURACY_WINDOW_MS).toISOString();
      const { reviewed, correct } = history.accuracy(verification.camera_id, since);
      const accuracy = reviewed > 0 ? Math.round((correct / reviewed) * 1000) / 1000 : null;
      if (reviewed >= MIN_REVIEWS)
        deps.alerts.judge(
          verification.camera_id,
          deps.modelOf(verification.camera_id),
          ACCURACY_THRESHOLD,
          accuracy,
        );
      return {
        verification_id: verificationId,
        correct: input.correct,
        camera_id: verification.camera_id,
        accuracy: { value: accuracy, reviewed, window_hours: ACCURACY_WINDOW_MS / 3_600_000 },
      };
    },
  };
}

export type Verifier = ReturnType<typeof createVerifier>;
