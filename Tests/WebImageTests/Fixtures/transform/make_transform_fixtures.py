#!/usr/bin/env python3
"""Pillow references for the transformer tests (TransformerPillowTests.swift).

Writes, beside this script:
  source.rgba          a 48x40 opaque RGBA test pattern (gradients, hard edges, a disc)
  alpha.rgba           the same pattern with a varying alpha channel
  blur_<s>.rgba        source blurred with ImageFilter.GaussianBlur(s)
  blur_alpha_<s>.rgba  alpha blurred premultiplied: convert('RGBa') → GaussianBlur → 'RGBA'
  rotate_<d>.rgba      source.rotate(d, resample=BICUBIC, expand=True)
  references.json      sizes, parameters and the Pillow version

Run from anywhere: python3 make_transform_fixtures.py
"""
import json
import math
import os

import PIL
from PIL import Image, ImageFilter

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 48, 40
BLURS = [1.5, 6.0]
ROTATIONS = [30.0, 135.0]


def pattern(with_alpha):
    im = Image.new("RGBA", (W, H))
    px = im.load()
    for y in range(H):
        for x in range(W):
            r = int(255 * x / (W - 1))
            g = int(255 * y / (H - 1))
            b = 220 if (x // 8 + y // 8) % 2 == 0 else 30
            if (x - 30) ** 2 + (y - 14) ** 2 < 64:
                r, g, b = 250, 250, 40
            a = 255
            if with_alpha:
                a = int(255 * (0.5 + 0.5 * math.sin(x / 5.0) * math.cos(y / 7.0)))
            px[x, y] = (r, g, b, a)
    return im


def save(im, name):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(im.tobytes())


def main():
    source = pattern(False)
    alpha = pattern(True)
    save(source, "source.rgba")
    save(alpha, "alpha.rgba")
    refs = {"pillow": PIL.__version__, "width": W, "height": H, "blur": [], "rotate": []}
    for s in BLURS:
        save(source.filter(ImageFilter.GaussianBlur(s)), f"blur_{s}.rgba")
        save(alpha.convert("RGBa").filter(ImageFilter.GaussianBlur(s)).convert("RGBA"), f"blur_alpha_{s}.rgba")
        refs["blur"].append(s)
    for d in ROTATIONS:
        out = source.rotate(d, resample=Image.Resampling.BICUBIC, expand=True)
        save(out, f"rotate_{int(d)}.rgba")
        refs["rotate"].append({"degrees": d, "width": out.width, "height": out.height})
    with open(os.path.join(HERE, "references.json"), "w") as f:
        json.dump(refs, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
