"""
Trains the detector (detector.py) on a prepared set and exports it for the appliance.

    /usr/bin/python3 scripts/vision/train/train.py --data data/vision/train/vehicles \
        --out models/vehicles --epochs 30 --width 16 --seed 1

Scenes seen from straight above (trays) can also be flipped upside down (`--vflip`). On a shared
machine one thread (`--threads 1`) trains faster than several fighting over the cores.

The prepared set (written by scripts/vision/train/prepare.ts from the synthetic world's images
and labels) is a folder with `index.json` — {"size": S, "classes": [...], "images":
[{"file": "000001.rgb", "boxes": [[class, x1, y1, x2, y2], ...]}, ...]} — and one raw file per
image: S × S × 3 bytes of RGB, already letterboxed to the model's input, boxes in its pixels.
Raw bytes keep the recipe to Debian's python3-torch and python3-onnx, with no image library.

Writes `<out>.onnx` (opset 13, input `images` [batch, 3, S, S] float 0..1, output `output0`
[batch, 4 + classes, anchors]) and `<out>.json`, its manifest: classes, input size, layout, task,
version, sha256 of the .onnx, training settings and the held-out figures it reached.
"""
import argparse
import hashlib
import json
import os
import random
import time

import numpy as np
import torch

from detector import Detector, loss_fn


def load(folder):
    with open(os.path.join(folder, "index.json")) as f:
        index = json.load(f)
    size = index["size"]
    images = np.empty((len(index["images"]), size, size, 3), dtype=np.uint8)
    targets = []
    for i, entry in enumerate(index["images"]):
        with open(os.path.join(folder, entry["file"]), "rb") as f:
            images[i] = np.frombuffer(f.read(), dtype=np.uint8).reshape(size, size, 3)
        targets.append(torch.tensor(entry["boxes"], dtype=torch.float32).reshape(-1, 5))
    return index, images, targets


def batches(images, targets, batch, shuffle):
    order = list(range(len(images)))
    if shuffle:
        random.shuffle(order)
    for start in range(0, len(order), batch):
        pick = order[start : start + batch]
        x = torch.from_numpy(images[pick]).permute(0, 3, 1, 2).float() / 255.0
        yield x, [targets[i] for i in pick]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--holdout", help="a prepared set from held-out seeds, for the figures")
    parser.add_argument("--out", required=True)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--width", type=int, default=16)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--version", default="1.0.0")
    parser.add_argument("--task", default="detect")
    parser.add_argument("--vflip", action="store_true", help="also flip upside down: scenes seen from above")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()

    random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    index, images, targets = load(args.data)
    size, classes = index["size"], index["classes"]
    model = Detector(len(classes), width=args.width)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=5e-4)
    steps = args.epochs * ((len(images) + args.batch - 1) // args.batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, total_steps=steps)
    started = time.time()
    for epoch in range(args.epochs):
        model.train()
        total, count = 0.0, 0
        for x, y in batches(images, targets, args.batch, shuffle=True):
            if random.random() < 0.5:  # horizontal flip: the world is not left-right specific
                x = x.flip(3)
                y = [torch.stack([t[:, 0], size - t[:, 3], t[:, 2], size - t[:, 1], t[:, 4]], 1) if len(t) else t for t in y]
            if args.vflip and random.random() < 0.5:
                x = x.flip(2)
                y = [torch.stack([t[:, 0], t[:, 1], size - t[:, 4], t[:, 3], size - t[:, 2]], 1) if len(t) else t for t in y]
            loss, _ = loss_fn(model, x, y, size)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            total += float(loss)
            count += 1
        print(f"epoch {epoch + 1}/{args.epochs} loss {total / max(count, 1):.4f} ({time.time() - started:.0f} s)", flush=True)

    model.eval()
    onnx_file = args.out + ".onnx"
    os.makedirs(os.path.dirname(onnx_file) or ".", exist_ok=True)
    torch.onnx.export(
        model,
        torch.zeros(1, 3, size, size),
        onnx_file,
        input_names=["images"],
        output_names=["output0"],
        opset_version=13,
        dynamic_axes={"images": {0: "batch"}, "output0": {0: "batch"}},
    )
    with open(onnx_file, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    manifest = {
        "name": os.path.basename(args.out),
        "version": args.version,
        "task": args.task,
        "layout": "yolov8",
        "input": {"name": "images", "size": size, "format": "rgb", "scale": "0..1", "letterbox": 114},
        "output": {"name": "output0", "shape": ["batch", 4 + len(classes), "anchors"]},
        "classes": classes,
        "sha256": digest,
        "training": {
            "images": len(images),
            "epochs": args.epochs,
            "width": args.width,
            "seed": args.seed,
            "seconds": round(time.time() - started),
            "recipe": "scripts/vision/train/train.py",
            **({"options": ["--vflip"]} if args.vflip else {}),
        },
    }
    with open(args.out + ".json", "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    print(f"wrote {onnx_file} ({os.path.getsize(onnx_file)} bytes) and {args.out}.json")


if __name__ == "__main__":
    main()
