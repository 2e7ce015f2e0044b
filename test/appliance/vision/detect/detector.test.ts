import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDetector, type Detector } from '../../../../appliance/vision/detect/detector.ts';
import { loadModel, ModelError } from '../../../../appliance/vision/detect/model.ts';
import { type Box, iou } from '../../../../appliance/vision/types.ts';

// A detector trained by the project's recipe on red and green rectangles (scripts/vision/train/fixture.py).
const FIXTURE = join(import.meta.dirname, '../../../fixtures/vision/rectangles');
const log = pino({ level: 'silent' });

/** A grey frame with filled rectangles, as the fixture model was trained on (sides of 14 to 48 of its 128 px). */
function frame(width: number, height: number, rectangles: Array<{ color: 'red' | 'green'; box: Box }>) {
  const data = Buffer.alloc(width * height * 3, 115);
  for (const { color, box } of rectangles)
    for (let y = box[1]; y < box[3]; y += 1)
      for (let x = box[0]; x < box[2]; x += 1) {
        const at = (y * width + x) * 3;
        data[at] = color === 'red' ? 230 : 26;
        data[at + 1] = color === 'green' ? 230 : 26;
        data[at + 2] = 26;
      }
  return { data, width, height };
}

describe('detection through onnxruntime in a worker thread', () => {
  let detector: Detector;
  const dirs: string[] = [];
  beforeAll(async () => {
    detector = await createDetector(await loadModel(FIXTURE), { maxBatch: 4, log });
  });
  afterAll(async () => {
    await detector.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const options = { floor: 0.5, iouThreshold: 0.5 };

  it('finds the rectangles of a frame larger than the model input, in the frame’s pixels', async () => {
    const truth: Array<{ color: 'red' | 'green'; box: Box }> = [
      { color: 'red', box: [20, 30, 80, 90] },
      { color: 'green', box: [150, 60, 220, 130] },
    ];
    const result = await detector.detect(frame(256, 160, truth), options);
    for (const { color, box } of truth) {
      const found = result.detections.filter((d) => d.className === color);
      expect(found, `${color} ${JSON.stringify(result.detections)}`).toHaveLength(1);
      expect(iou(found[0]!.box, box)).toBeGreaterThan(0.6);
    }
    expect(result.inferenceMs).toBeGreaterThan(0);
  });

  it('batches frames asked for while the worker is busy', async () => {
    const frames = Array.from({ length: 5 }, (_, i) =>
      frame(128, 128, [{ color: i % 2 ? 'red' : 'green', box: [10 + i * 10, 20, 50 + i * 10, 70] }]),
    );
    const results = await Promise.all(frames.map((f) => detector.detect(f, options)));
    expect(results.map((r) => r.batch)).toEqual([1, 4, 4, 4, 4]);
    results.forEach((r, i) => {
      expect(r.detections.map((d) => d.className)).toEqual([i % 2 ? 'red' : 'green']);
    });
  });

  it('refuses a corrupt model with a clear error, and the running model carries on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vision-model-'));
    dirs.push(dir);
    const base = join(dir, 'broken');
    const manifest = JSON.parse(readFileSync(`${FIXTURE}.json`, 'utf8')) as Record<string, unknown>;
    // Damaged after its manifest was written: the digest tells.
    const bytes = readFileSync(`${FIXTURE}.onnx`);
    const middle = bytes.length >> 1;
    bytes[middle] = bytes[middle]! ^ 0xff;
    writeFileSync(`${base}.onnx`, bytes);
    writeFileSync(`${base}.json`, JSON.stringify(manifest));
    await expect(loadModel(base)).rejects.toThrow(/does not match its manifest .* corrupt/);
    // Bytes that are no model at all, with a manifest that matches them: onnxruntime refuses them.
    const garbage = Buffer.from('not an onnx model');
    writeFileSync(`${base}.onnx`, garbage);
    writeFileSync(
      `${base}.json`,
      JSON.stringify({ ...manifest, sha256: createHash('sha256').update(garbage).digest('hex') }),
    );
    const error = await detector.swap(await loadModel(base)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as Error).message).toMatch(/cannot run/);
    const still = await detector.detect(frame(128, 128, [{ color: 'red', box: [40, 40, 80, 80] }]), options);
    expect(still.detections.map((d) => d.className)).toEqual(['red']);
  });

  it('swaps to a good model without losing a frame asked for meanwhile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vision-model-'));
    dirs.push(dir);
    copyFileSync(`${FIXTURE}.onnx`, join(dir, 'next.onnx'));
    const manifest = JSON.parse(readFileSync(`${FIXTURE}.json`, 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'next.json'), JSON.stringify({ ...manifest, version: '1.0.1' }));
    const during = detector.detect(frame(128, 128, [{ color: 'green', box: [40, 40, 80, 80] }]), options);
    await detector.swap(await loadModel(join(dir, 'next')));
    expect(detector.manifest.version).toBe('1.0.1');
    expect((await during).detections.map((d) => d.className)).toEqual(['green']);
    const after = await detector.detect(frame(128, 128, [{ color: 'red', box: [40, 40, 80, 80] }]), options);
    expect(after.detections.map((d) => d.className)).toEqual(['red']);
  });
});
