import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  encodeSnapshot,
  overlaySvg,
  snapshotName,
  writeSnapshot,
} from '../../../../appliance/vision/record/snapshot.ts';

const WIDTH = 1280;
const HEIGHT = 720;
const black = (width = WIDTH, height = HEIGHT) => ({ data: Buffer.alloc(width * height * 3), width, height });

async function pixelAt(file: string, x: number, y: number) {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  const offset = (y * info.width + x) * info.channels;
  return [data[offset]!, data[offset + 1]!, data[offset + 2]!];
}

describe('snapshots', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vision-snapshot-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names files by UTC day, camera, time and kind', () => {
    const at = new Date('2026-03-04T05:06:07.089Z');
    expect(snapshotName('lane-1', at, 'detection')).toBe(
      '2026-03-04/lane-1/2026-03-04T05-06-07-089Z-detection.jpg',
    );
    expect(snapshotName('../../etc', at, 'verification')).toBe(
      '2026-03-04/______etc/2026-03-04T05-06-07-089Z-verification.jpg',
    );
  });

  it('writes a JPEG of the frame with the boxes drawn in their colour', async () => {
    const name = snapshotName('cam', new Date('2026-03-04T05:06:07Z'), 'detection');
    const written = await writeSnapshot({
      frame: black(),
      boxes: [{ box: [200, 200, 600, 500], label: 'person 0.91', color: '#ff0000' }],
      dir,
      name,
      quality: 90,
    });
    expect(written.file).toBe(join(dir, name));
    const metadata = await sharp(written.file).metadata();
    expect(metadata).toMatchObject({ format: 'jpeg', width: WIDTH, height: HEIGHT });
    expect(statSync(written.file).size).toBe(written.bytes);

    const [r, g, b] = await pixelAt(written.file, 200, 350); // on the left edge
    expect(r).toBeGreaterThan(180);
    expect(g).toBeLessThan(70);
    expect(b).toBeLessThan(70);
    const [ri, gi, bi] = await pixelAt(written.file, 400, 350); // inside: untouched
    expect(Math.max(ri!, gi!, bi!)).toBeLessThan(30);
    const [rt] = await pixelAt(written.file, 202, 200 - 20); // the label's tab above the box
    expect(rt).toBeGreaterThan(180);
  });

  it('escapes labels and ignores colours that are not colours', () => {
    const svg = overlaySvg(100, 100, [{ box: [0, 0, 50, 50], label: '<b>&', color: 'red" onload="x' }]);
    expect(svg).toContain('&lt;b&gt;&amp;');
    expect(svg).not.toContain('onload');
  });

  it('refuses a name leading out of its dir', async () => {
    await expect(
      writeSnapshot({ frame: black(8, 8), boxes: [], dir, name: '../escaped.jpg' }),
    ).rejects.toThrow(/escapes/);
  });

  it('copies the frame, so a pooled buffer refilled during the encode does not show', async () => {
    const frame = black(64, 64);
    const encoding = encodeSnapshot(frame, []);
    frame.data.fill(255);
    const { data } = await sharp(await encoding)
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(Math.max(...data)).toBeLessThan(30);
  });

  it('encodes 1280x720 with eight boxes quickly enough (measured)', async () => {
    const frame = black();
    for (let i = 0; i < frame.data.length; i += 1) frame.data[i] = (i * 7 + Math.floor(i / 3840)) & 255;
    const boxes = Array.from({ length: 8 }, (_, i) => ({
      box: [50 + i * 150, 100, 180 + i * 150, 500] as const,
      label: `person 0.9${i}`,
    }));
    const times: number[] = [];
    for (let i = 0; i < 15; i += 1) {
      const start = performance.now();
      await encodeSnapshot(frame, boxes);
      times.push(performance.now() - start);
    }
    const median = times.slice(5).sort((a, b) => a - b)[5]!;
    console.log(`snapshot encode 1280x720, 8 boxes, quality 80: median ${median.toFixed(1)} ms`);
    expect(median).toBeLessThan(250);
  });
});
