/**
 * Turns a training set in the YOLO layout (images/<split>/*.png|jpg, labels/<split>/*.txt with
 * `class cx cy w h` normalised, data.yaml names) into what train.py reads: per split a folder
 * with index.json and one raw RGB file per image, letterboxed to the model's square input the
 * way the appliance letterboxes a frame (same geometry, grey 114), boxes in input pixels.
 *
 *   tsx scripts/vision/train/prepare.ts --data data/vision/datasets/lane --size 320 \
 *       --out data/vision/train/lane
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { letterboxOf } from '../../../appliance/vision/detect/letterbox.ts';

const PAD = 114;

/** Packed RGB letterboxed into a square, nearest-neighbour like the appliance's letterboxInto. */
export function letterboxRgb(rgb: Buffer, width: number, height: number, size: number) {
  const transform = letterboxOf(width, height, size);
  const { padX, padY, scaledWidth, scaledHeight } = transform;
  const out = Buffer.alloc(size * size * 3, PAD);
  for (let y = 0; y < scaledHeight; y += 1) {
    const sourceRow = Math.min(height - 1, Math.floor(((y + 0.5) * height) / scaledHeight)) * width;
    for (let x = 0; x < scaledWidth; x += 1) {
      const source = (sourceRow + Math.min(width - 1, Math.floor(((x + 0.5) * width) / scaledWidth))) * 3;
      const target = ((padY + y) * size + padX + x) * 3;
      out[target] = rgb[source]!;
      out[target + 1] = rgb[source + 1]!;
      out[target + 2] = rgb[source + 2]!;
    }
  }
  return { out, transform };
}

function namesOf(yaml: string) {
  const names: string[] = [];
  for (const line of yaml.split('\n')) {
    const match = /^\s+(\d+):\s*(.+)$/.exec(line);
    if (match) names[Number(match[1])] = match[2]!.trim();
  }
  return names;
}

async function prepareSplit(data: string, split: string, size: number, out: string, classes: string[]) {
  const imagesDir = join(data, 'images', split);
  const files = (await readdir(imagesDir).catch(() => [] as string[])).filter((f) =>
    ['.png', '.jpg', '.jpeg'].includes(extname(f).toLowerCase()),
  );
  const target = join(out, split);
  await mkdir(target, { recursive: true });
  const images: Array<{ file: string; boxes: number[][] }> = [];
  for (const [i, file] of files.sort().entries()) {
    const { data: rgb, info } = await sharp(join(imagesDir, file))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const { out: square, transform } = letterboxRgb(rgb, info.width, info.height, size);
    const labelFile = join(data, 'labels', split, `${basename(file, extname(file))}.txt`);
    const labels = await readFile(labelFile, 'utf8').catch(() => '');
    const sx = transform.scaledWidth;
    const sy = transform.scaledHeight;
    const boxes = labels
      .split('\n')
      .map((line) => line.trim().split(/\s+/).map(Number))
      .filter((v) => v.length === 5 && v.every(Number.isFinite))
      .map(([c, cx, cy, w, h]) => [
        c!,
        transform.padX + (cx! - w! / 2) * sx,
        transform.padY + (cy! - h! / 2) * sy,
        transform.padX + (cx! + w! / 2) * sx,
        transform.padY + (cy! + h! / 2) * sy,
      ]);
    const name = `${String(i).padStart(6, '0')}.rgb`;
    await writeFile(join(target, name), square);
    images.push({ file: name, boxes });
  }
  await writeFile(join(target, 'index.json'), JSON.stringify({ size, classes, images }));
  return images.length;
}

async function main() {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      out: { type: 'string' },
      size: { type: 'string', default: '320' },
    },
  });
  if (!values.data || !values.out) {
    console.error('usage: tsx scripts/vision/train/prepare.ts --data <YOLO set> --out <dir> [--size 320]');
    process.exit(2);
  }
  const size = Number(values.size);
  if (!Number.isInteger(size) || size % 32 !== 0 || size < 64)
    throw new Error(`--size must be a multiple of 32 of at least 64, got ${values.size}`);
  const classes = namesOf(await readFile(join(values.data, 'data.yaml'), 'utf8'));
  for (const split of ['train', 'val']) {
    const count = await prepareSplit(values.data, split, size, values.out, classes);
    console.log(`${split}: ${count} images → ${join(values.out, split)}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(`prepare failed: ${(error as Error).message}`);
    process.exit(1);
  });
}
