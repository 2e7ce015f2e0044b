"""
A small anchor-free detector that exports in the YOLOv8/YOLO11 layout the appliance decodes:
one output `[batch, 4 + classes, anchors]`, boxes as centre x, centre y, width, height in input
pixels, then one sigmoid score per class (no objectness). Three scales (strides 8, 16, 32) over a
light backbone: the appliance runs it on CPU for up to eight cameras, and the synthetic scenes are
simple. Training assigns each ground-truth box to the grid points near its centre (inside the box,
within a radius of its centre, FCOS/YOLOX style), regresses the box by GIoU and L1, and learns an
IoU-aware class score with focal BCE.

Run with Debian's python3 (python3-torch, python3-onnx): see train.py.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

STRIDES = (8, 16, 32)


def conv(c_in, c_out, k=3, s=1):
    return nn.Sequential(nn.Conv2d(c_in, c_out, k, s, k // 2, bias=False), nn.BatchNorm2d(c_out), nn.SiLU())


class Block(nn.Module):
    """A residual pair of convolutions."""

    def __init__(self, c):
        super().__init__()
        self.a = conv(c, c, 1)
        self.b = conv(c, c, 3)

    def forward(self, x):
        return x + self.b(self.a(x))


class Detector(nn.Module):
    def __init__(self, classes: int, width: int = 16):
        super().__init__()
        w = width
        self.classes = classes
        self.stem = nn.Sequential(conv(3, w, 3, 2), conv(w, 2 * w, 3, 2))  # /4
        self.s8 = nn.Sequential(conv(2 * w, 4 * w, 3, 2), Block(4 * w))  # /8
        self.s16 = nn.Sequential(conv(4 * w, 8 * w, 3, 2), Block(8 * w))  # /16
        self.s32 = nn.Sequential(conv(8 * w, 8 * w, 3, 2), Block(8 * w))  # /32
        self.lat32 = conv(8 * w, 4 * w, 1)
        self.lat16 = conv(8 * w, 4 * w, 1)
        self.lat8 = conv(4 * w, 4 * w, 1)
        self.heads = nn.ModuleList(
            [nn.Sequential(conv(4 * w, 4 * w), nn.Conv2d(4 * w, 4 + classes, 1)) for _ in STRIDES]
        )
        for head in self.heads:
            # Start with low class scores: most grid points see background.
            nn.init.constant_(head[-1].bias[4:], -4.0)

    def features(self, x):
        x = self.stem(x)
        p8 = self.s8(x)
        p16 = self.s16(p8)
        p32 = self.s32(p16)
        f32 = self.lat32(p32)
        f16 = self.lat16(p16) + F.interpolate(f32, scale_factor=2, mode="nearest")
        f8 = self.lat8(p8) + F.interpolate(f16, scale_factor=2, mode="nearest")
        return [f8, f16, f32]

    def raw(self, x):
        """Per scale: [batch, 4 + classes, h, w] of box distances (log) and class logits."""
        return [head(f) for head, f in zip(self.heads, self.features(x))]

    def forward(self, x):
        """The export layout: [batch, 4 + classes, anchors], boxes in input pixels, sigmoid scores."""
        outputs = []
        for stride, out in zip(STRIDES, self.raw(x)):
            b, _, h, w = out.shape
            ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
            cx = (xs.float() + 0.5) * stride
            cy = (ys.float() + 0.5) * stride
            # Distances to the four sides, in strides, kept positive.
            d = torch.exp(out[:, :4].clamp(max=8.0)) * stride
            x1 = cx - d[:, 0]
            y1 = cy - d[:, 1]
            x2 = cx + d[:, 2]
            y2 = cy + d[:, 3]
            box = torch.stack([(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1], 1)
            scores = torch.sigmoid(out[:, 4:])
            outputs.append(torch.cat([box, scores], 1).reshape(b, 4 + self.classes, h * w))
        return torch.cat(outputs, 2)


def grid_points(size: int):
    """Centres and strides of every anchor point, in the order forward() emits them."""
    points, strides = [], []
    for stride in STRIDES:
        n = size // stride
        ys, xs = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
        points.append(torch.stack([(xs.reshape(-1) + 0.5) * stride, (ys.reshape(-1) + 0.5) * stride], 1))
        strides.append(torch.full((n * n,), float(stride)))
    return torch.cat(points), torch.cat(strides)


def box_iou(a, b):
    """IoU of paired boxes [n, 4] as x1, y1, x2, y2."""
    lt = torch.max(a[:, :2], b[:, :2])
    rb = torch.min(a[:, 2:], b[:, 2:])
    inter = (rb - lt).clamp(min=0).prod(1)
    area_a = (a[:, 2:] - a[:, :2]).clamp(min=0).prod(1)
    area_b = (b[:, 2:] - b[:, :2]).clamp(min=0).prod(1)
    return inter / (area_a + area_b - inter + 1e-9)


def giou_loss(a, b):
    iou = box_iou(a, b)
    lt = torch.min(a[:, :2], b[:, :2])
    rb = torch.max(a[:, 2:], b[:, 2:])
    hull = (rb - lt).clamp(min=0).prod(1) + 1e-9
    area_a = (a[:, 2:] - a[:, :2]).clamp(min=0).prod(1)
    area_b = (b[:, 2:] - b[:, :2]).clamp(min=0).prod(1)
    inter = iou * (area_a + area_b) / (1 + iou)
    union = area_a + area_b - inter
    return 1 - iou + (hull - union) / hull


def assign(targets, points, strides, radius=2.5):
    """
    For one image: targets [n, 5] (class, x1, y1, x2, y2 in input pixels). Each point takes the
    smallest box whose centre region (radius × its stride) and extent both contain it.
    Returns (index of the assigned target or -1) per point.
    """
    if len(targets) == 0:
        return torch.full((len(points),), -1, dtype=torch.long)
    boxes = targets[:, 1:]
    px, py = points[:, 0:1], points[:, 1:2]
    inside = (px > boxes[:, 0]) & (px < boxes[:, 2]) & (py > boxes[:, 1]) & (py < boxes[:, 3])
    cx = (boxes[:, 0] + boxes[:, 2]) / 2
    cy = (boxes[:, 1] + boxes[:, 3]) / 2
    r = radius * strides[:, None]
    near = ((px - cx).abs() < r) & ((py - cy).abs() < r)
    # Each box also owns its nearest point on the scale that suits its size, so small boxes learn.
    ok = inside & near
    area = ((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]))[None, :].expand_as(ok)
    cost = torch.where(ok, area, torch.full_like(area, math.inf))
    best, index = cost.min(1)
    index[torch.isinf(best)] = -1
    return index


def loss_fn(model, images, targets_list, size):
    """targets_list: per image a tensor [n, 5] (class, x1, y1, x2, y2) in input pixels."""
    out = model(images)  # [b, 4 + c, a]
    points, strides = grid_points(size)
    pred_boxes = out[:, :4].permute(0, 2, 1)  # cx, cy, w, h
    pred_xyxy = torch.cat([pred_boxes[..., :2] - pred_boxes[..., 2:] / 2, pred_boxes[..., :2] + pred_boxes[..., 2:] / 2], -1)
    scores = out[:, 4:].permute(0, 2, 1).clamp(1e-6, 1 - 1e-6)
    total_box, total_cls, positives = 0.0, 0.0, 0
    for i, targets in enumerate(targets_list):
        index = assign(targets, points, strides)
        pos = index >= 0
        cls_target = torch.zeros_like(scores[i])
        if pos.any():
            matched = targets[index[pos]]
            pb = pred_xyxy[i][pos]
            gb = matched[:, 1:]
            iou = box_iou(pb, gb).detach().clamp(min=0.1)
            cls_target[pos, matched[:, 0].long()] = iou
            total_box = total_box + giou_loss(pb, gb).sum() + (F.l1_loss(pb, gb, reduction="none").sum(1) / strides[pos]).sum() * 0.1
            positives += int(pos.sum())
        p = scores[i]
        bce = F.binary_cross_entropy(p, cls_target, reduction="none")
        weight = (cls_target - p).abs().pow(2.0)  # focal-style: hard points count more
        total_cls = total_cls + (bce * weight).sum()
    n = max(positives, 1)
    return (total_box * 5.0 + total_cls) / n, positives
