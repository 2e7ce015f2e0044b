"""
The test fixture model: the same detector trained for a couple of minutes on red and green rectangles on
grey (128 px input), so the appliance's detection tests run a real trained model through
onnxruntime, and can check what it finds, independently of the synthetic world's models.

    /usr/bin/python3 scripts/vision/train/fixture.py test/fixtures/vision/rectangles
"""
import hashlib
import json
import os
import random
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from detector import Detector, loss_fn  # noqa: E402

SIZE = 128
STEPS = 3000
CLASSES = ["red", "green"]


def sample(n):
    images = torch.full((n, 3, SIZE, SIZE), 0.45)
    targets = []
    for i in range(n):
        boxes = []
        for _ in range(random.randint(1, 3)):
            w, h = random.randint(14, 48), random.randint(14, 48)
            x, y = random.randint(0, SIZE - w), random.randint(0, SIZE - h)
            c = random.randint(0, 1)
            images[i, :, y : y + h, x : x + w] = 0.1
            images[i, c, y : y + h, x : x + w] = 0.9
            boxes.append([c, x, y, x + w, y + h])
        targets.append(torch.tensor(boxes, dtype=torch.float32))
    return images, targets


def main():
    out = sys.argv[1]
    random.seed(3)
    torch.manual_seed(3)
    torch.set_num_threads(os.cpu_count() or 1)
    model = Detector(len(CLASSES), width=8)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=3e-3, total_steps=STEPS)
    for step in range(STEPS):
        images, targets = sample(16)
        loss, _ = loss_fn(model, images, targets, SIZE)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        if step % 250 == 0:
            print(f"step {step} loss {float(loss):.3f}", flush=True)
    model.eval()
    torch.onnx.export(
        model,
        torch.zeros(1, 3, SIZE, SIZE),
        out + ".onnx",
        input_names=["images"],
        output_names=["output0"],
        opset_version=13,
        dynamic_axes={"images": {0: "batch"}, "output0": {0: "batch"}},
    )
    with open(out + ".onnx", "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    manifest = {
        "name": "rectangles",
        "version": "1.0.0",
        "task": "detect",
        "layout": "yolov8",
        "input": {"name": "images", "size": SIZE, "format": "rgb", "scale": "0..1", "letterbox": 114},
        "output": {"name": "output0", "shape": ["batch", 4 + len(CLASSES), "anchors"]},
        "classes": CLASSES,
        "sha256": digest,
        "training": {"recipe": "scripts/vision/train/fixture.py", "steps": STEPS, "width": 8, "seed": 3},
    }
    with open(out + ".json", "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    print(f"wrote {out}.onnx ({os.path.getsize(out + '.onnx')} bytes)")


if __name__ == "__main__":
    main()
