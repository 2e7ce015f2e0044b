/**
 * Detection for every camera of the appliance through one model worker: cameras ask for a frame's
 * detections, and whatever has gathered while the worker ran goes next as one batch (up to
 * `inference_batch_size`), so eight cameras share one inference instead of queueing eight. A new
 * model is loaded and warmed up beside the running one and takes over only once it works; one
 * that fails to load is refused with its reason and the running model carries on.
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Detection, Frame } from '../types.ts';
import { type LoadedModel, ModelError } from './model.ts';
import type { WorkerReply, WorkerRequest } from './worker.ts';

export interface DetectorOptions {
  /** Frames a single inference takes at most (`inference_batch_size`). */
  maxBatch: number;
  /** onnxruntime's threads inside the worker. */
  threads?: number;
  log: Logger;
}

export interface DetectOptions {
  /** Boxes below this are dropped (the tracker's floor, under `min_confidence`). */
  floor: number;
  iouThreshold: number;
}

export interface DetectionResult {
  detections: Detection[];
  /** The batch this frame went in: its size and where its time went. */
  batch: number;
  inferenceMs: number;
  preMs: number;
  postMs: number;
  /** From the request to the answer, queueing included. */
  totalMs: number;
}

/** What detection reads of a frame: packed RGB unless `format` says otherwise. */
export type DetectFrame = Pick<Frame, 'data' | 'width' | 'height'> & Partial<Pick<Frame, 'format'>>;

interface Pending {
  frame: DetectFrame;
  options: DetectOptions;
  askedAt: number;
  resolve(result: DetectionResult): void;
  reject(error: Error): void;
}

/**
 * The worker: the file `npm run build` writes beside the appliance's bundle in production; in
 * development and tests the TypeScript source, loaded through tsx registered inside the thread
 * (a worker does not inherit the parent's module hooks).
 */
function spawnWorker() {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) {
    const bundled = new URL('./vision-detect-worker.mjs', here);
    if (!existsSync(bundled)) throw new ModelError(`the detection worker ${bundled.pathname} is missing`);
    return new Worker(bundled);
  }
  const source = new URL('./worker.ts', here).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `const { register } = await import(${JSON.stringify(tsx)}); register(); await import(${JSON.stringify(source)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`));
}

/** A worker with the model loaded and warmed up, or the reason it could not be. */
async function startWorker(model: LoadedModel, options: DetectorOptions) {
  const worker = spawnWorker();
  const ready = new Promise<number>((resolve, reject) => {
    const onMessage = (reply: WorkerReply) => {
      if (reply.kind === 'ready') resolve(reply.warmupMs);
      else if (reply.kind === 'failed')
        reject(new ModelError(`model ${model.file} cannot run: ${reply.message}`));
    };
    worker.once('message', onMessage);
    worker.once('error', (error) =>
      reject(new ModelError(`model ${model.file} cannot run: ${error.message}`)),
    );
  });
  const request: WorkerRequest = {
    kind: 'load',
    bytes: model.bytes,
    manifest: model.manifest,
    maxBatch: options.maxBatch,
    threads: options.threads ?? 1,
  };
  worker.postMessage(request);
  try {
    const warmupMs = await ready;
    return { worker, warmupMs };
  } catch (error) {
    await worker.terminate();
    throw error;
  }
}

export async function createDetector(initial: LoadedModel, options: DetectorOptions) {
  const log = options.log.child({ module: 'detect' });
  let model = initial;
  let current = await startWorker(model, options);
  log.info(
    { model: model.manifest.name, version: model.manifest.version, warmupMs: Math.round(current.warmupMs) },
    'model loaded',
  );
  const waiting: Pending[] = [];
  let running: { id: number; batch: Pending[] } | undefined;
  let nextId = 1;
  let closed = false;

  function onReply(reply: WorkerReply) {
    if (reply.kind !== 'done' && reply.kind !== 'error') return;
    if (!running || running.id !== reply.id) return;
    const { batch } = running;
    running = undefined;
    const now = performance.now();
    batch.forEach((pending, i) => {
      if (reply.kind === 'error') pending.reject(new Error(`detection failed: ${reply.message}`));
      else
        pending.resolve({
          detections: reply.detections[i]!,
          batch: batch.length,
          inferenceMs: reply.inferenceMs,
          preMs: reply.preMs,
          postMs: reply.postMs,
          totalMs: now - pending.askedAt,
        });
    });
    dispatch();
  }
  current.worker.on('message', onReply);

  /** Frames of one batch share the decode options of its first (one camera's settings apply per camera anyway). */
  function dispatch() {
    if (running || waiting.length === 0 || closed) return;
    const first = waiting[0]!.options;
    const batch: Pending[] = [];
    for (let i = 0; i < waiting.length && batch.length < options.maxBatch; ) {
      const pending = waiting[i]!;
      if (pending.options.floor === first.floor && pending.options.iouThreshold === first.iouThreshold) {
        batch.push(pending);
        waiting.splice(i, 1);
      } else i += 1;
    }
    const id = nextId++;
    running = { id, batch };
    const request: WorkerRequest = {
      kind: 'run',
      id,
      frames: batch.map(({ frame }) => ({
        data: frame.data,
        width: frame.width,
        height: frame.height,
        format: frame.format ?? 'rgb24',
      })),
      floor: first.floor,
      iouThreshold: first.iouThreshold,
    };
    current.worker.postMessage(request);
  }

  return {
    get manifest() {
      return model.manifest;
    },

    /**
     * The frame's detections in its own pixels. A frame in shared memory (capture's) is read by
     * the worker where it is; any other's bytes are copied to it.
     */
    detect(frame: DetectFrame, detectOptions: DetectOptions) {
      if (closed) return Promise.reject(new Error('the detector is closed'));
      return new Promise<DetectionResult>((resolve, reject) => {
        waiting.push({ frame, options: detectOptions, askedAt: performance.now(), resolve, reject });
        dispatch();
      });
    },

    /**
     * Loads `next` in a new worker; once it answers its warm-up, frames go to it and the old worker
     * ends after its last batch. A model that cannot run throws ModelError and changes nothing.
     */
    async swap(next: LoadedModel) {
      const started = await startWorker(next, options);
      const previous = current;
      previous.worker.off('message', onReply);
      // A batch in flight on the old worker still gets its answer there.
      const inFlight = running;
      if (inFlight) {
        previous.worker.on('message', function finish(reply: WorkerReply) {
          if ((reply.kind === 'done' || reply.kind === 'error') && reply.id === inFlight.id) {
            previous.worker.off('message', finish);
            onReply(reply);
            void previous.worker.terminate();
          }
        });
      } else void previous.worker.terminate();
      current = started;
      model = next;
      current.worker.on('message', onReply);
      log.info(
        { model: next.manifest.name, version: next.manifest.version, warmupMs: Math.round(started.warmupMs) },
        'model swapped',
      );
      dispatch();
    },

    async close() {
      closed = true;
      for (const pending of waiting.splice(0)) pending.reject(new Error('the detector is closed'));
      await current.worker.terminate();
    },
  };
}

export type Detector = Awaited<ReturnType<typeof createDetector>>;
