/**
 * The detectors the cameras share: one per model, each in its own worker thread, created when a
 * camera first needs it. Cameras hold a handle that always reaches the model's current detector,
 * so a model swapped in (model sync) or a detector rebuilt for a new `inference_batch_size` takes
 * over without restarting any camera.
 */
import type { Logger } from 'pino';
import { createDetector, type DetectOptions, type Detector } from '../detect/detector.ts';
import { type LoadedModel, loadModel, type ModelManifest } from '../detect/model.ts';
import type { FrameDetector } from '../pipeline/camera.ts';

export interface ModelPoolOptions {
  /** Where a model's files are: `<base>.onnx` and `<base>.json`. */
  resolve(name: string): string;
  maxBatch: number;
  log: Logger;
}

const RETIRE_AFTER_MS = 5000;

interface Entry {
  detector: Promise<Detector>;
  maxBatch: number;
}

export function createModelPool(options: ModelPoolOptions) {
  const entries = new Map<string, Entry>();
  let maxBatch = options.maxBatch;

  function start(name: string, loaded?: LoadedModel) {
    const detector = (async () =>
      createDetector(loaded ?? (await loadModel(options.resolve(name))), {
        maxBatch,
        log: options.log,
      }))();
    const entry = { detector, maxBatch };
    entries.set(name, entry);
    // A model that fails to load is tried again the next time a camera asks for it.
    detector.catch(() => {
      if (entries.get(name) === entry) entries.delete(name);
    });
    return entry;
  }

  const entryOf = (name: string) => entries.get(name) ?? start(name);

  return {
    /** Loads the model if no camera has yet; rejects with ModelError when it cannot run. */
    async detector(name: string): Promise<Detector> {
      return entryOf(name).detector;
    },
    /** A handle for a camera: it follows swaps. */
    handle(name: string): FrameDetector & { manifest(): Promise<ModelManifest> } {
      return {
        detect: async (frame, detectOptions: DetectOptions) =>
          (await entryOf(name).detector).detect(frame, detectOptions),
        manifest: async () => (await entryOf(name).detector).manifest,
      };
    },
    /** Puts `loaded` in place of the model's running one; throws ModelError, changing nothing, if it cannot run. */
    async swap(name: string, loaded: LoadedModel) {
      const entry = entries.get(name);
      const running = entry && (await entry.detector.catch(() => undefined));
      if (running) return running.swap(loaded);
      const started = start(name, loaded);
      await started.detector;
    },
    /** Rebuilds the detectors with a new batch size; frames in flight finish on the old ones. */
    async setMaxBatch(next: number) {
      if (next === maxBatch) return;
      maxBatch = next;
      for (const [name, entry] of [...entries]) {
        const old = await entry.detector.catch(() => undefined);
        if (!old) continue;
        const replacement = createDetector(await loadModel(options.resolve(name)), {
          maxBatch,
          log: options.log,
        });
        entries.set(name, { detector: replacement, maxBatch });
        await replacement.catch(() => undefined);
        // Frames already given to the old one get their answers first: closing ends its worker.
        setTimeout(() => void old.close(), RETIRE_AFTER_MS).unref();
      }
    },
    loaded: () => [...entries.keys()],
    async close() {
      const all = [...entries.values()];
      entries.clear();
      await Promise.all(all.map(async (entry) => (await entry.detector.catch(() => undefined))?.close()));
    },
  };
}

export type ModelPool = ReturnType<typeof createModelPool>;

/** The model a camera runs: its `model_variant` when set, else its type's. */
export function modelNameFor(type: string, variant: string | null): string {
  if (variant) return variant;
  return type === 'pickup_window' || type === 'food_recognition' ? 'food-items' : 'vehicles';
}
