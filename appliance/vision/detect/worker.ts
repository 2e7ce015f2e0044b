/**
 * The detection worker thread: onnxruntime's `run` blocks the thread it is on, so each model runs
 * here, and with it everything per frame that costs (letterboxing, decoding, suppression): the
 * API's event loop only hands frames over and gets small lists of boxes back.
 *
 * Messages in: `load` (model bytes, manifest, largest batch), then `run` (frames, decode options).
 * Messages out: `ready` or `failed` once, then per run `done` or `error` with its id.
 */
import { parentPort } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import type { PixelFormat } from '../pixels.ts';
import type { Detection } from '../types.ts';
import { type Letterbox, letterboxInto } from './letterbox.ts';
import type { ModelManifest } from './model.ts';
import { decodeYolo } from './yolo.ts';

export interface WorkerFrame {
  data: Uint8Array;
  width: number;
  height: number;
  format: PixelFormat;
}

export type WorkerRequest =
  | { kind: 'load'; bytes: Uint8Array; manifest: ModelManifest; maxBatch: number; threads: number }
  | {
      kind: 'run';
      id: number;
      frames: WorkerFrame[];
      floor: number;
      iouThreshold: number;
    };

export type WorkerReply =
  | { kind: 'ready'; warmupMs: number }
  | { kind: 'failed'; message: string }
  | {
      kind: 'done';
      id: number;
      detections: Detection[][];
      inferenceMs: number;
      preMs: number;
      postMs: number;
    }
  | { kind: 'error'; id: number; message: string };

let session: ort.InferenceSession | undefined;
let manifest: ModelManifest | undefined;
let input: Float32Array = new Float32Array(0);

const post = (reply: WorkerReply) => parentPort!.postMessage(reply);

async function load(request: Extract<WorkerRequest, { kind: 'load' }>) {
  try {
    session = await ort.InferenceSession.create(request.bytes, {
      intraOpNumThreads: request.threads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    });
    manifest = request.manifest;
    if (
      !session.inputNames.includes(manifest.input.name) ||
      !session.outputNames.includes(manifest.output.name)
    )
      throw new Error(
        `the model's input and output are ${session.inputNames.join(', ')} → ${session.outputNames.join(', ')}, its manifest says ${manifest.input.name} → ${manifest.output.name}`,
      );
    const size = manifest.input.size;
    input = new Float32Array(request.maxBatch * 3 * size * size);
    // The first runs allocate and plan: do them now, at the largest batch too, not on a live frame.
    const started = performance.now();
    for (const batch of new Set([1, request.maxBatch])) {
      const data = input.subarray(0, batch * 3 * size * size).fill(114 / 255);
      const tensor = new ort.Tensor('float32', data, [batch, 3, size, size]);
      const out = await session.run({ [manifest.input.name]: tensor });
      const dims = out[manifest.output.name]!.dims;
      if (dims.length !== 3 || dims[1] !== 4 + manifest.classes.length)
        throw new Error(
          `the model's output is [${dims.join(', ')}], not [batch, ${4 + manifest.classes.length}, anchors] for its ${manifest.classes.length} classes`,
        );
    }
    post({ kind: 'ready', warmupMs: performance.now() - started });
  } catch (error) {
    post({ kind: 'failed', message: (error as Error).message });
  }
}

async function run(request: Extract<WorkerRequest, { kind: 'run' }>) {
  try {
    if (!session || !manifest) throw new Error('no model is loaded');
    const size = manifest.input.size;
    const plane = 3 * size * size;
    const batch = request.frames.length;
    const t0 = performance.now();
    const transforms: Letterbox[] = request.frames.map((frame, i) =>
      letterboxInto(frame.data, frame.width, frame.height, size, input, i * plane, frame.format),
    );
    const tensor = new ort.Tensor('float32', input.subarray(0, batch * plane), [batch, 3, size, size]);
    const t1 = performance.now();
    const out = (await session.run({ [manifest.input.name]: tensor }))[manifest.output.name]!;
    const t2 = performance.now();
    const options = { classes: manifest.classes, floor: request.floor, iouThreshold: request.iouThreshold };
    const data = out.data as Float32Array;
    const detections = transforms.map((transform, i) => decodeYolo(data, out.dims, i, transform, options));
    post({
      kind: 'done',
      id: request.id,
      detections,
      preMs: t1 - t0,
      inferenceMs: t2 - t1,
      postMs: performance.now() - t2,
    });
  } catch (error) {
    post({ kind: 'error', id: request.id, message: (error as Error).message });
  }
}

// One request at a time: the parent sends the next run only when this one is answered.
parentPort?.on('message', (request: WorkerRequest) => {
  if (request.kind === 'load') void load(request);
  else void run(request);
});
