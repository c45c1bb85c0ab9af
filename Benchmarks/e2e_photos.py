#!/usr/bin/env python3
"""Makes the end-to-end benchmark's photos: COUNT distinct JPEGs at typical web sizes.

Usage: e2e_photos.py CORPUS_DIR OUT_DIR [COUNT]

Each photo is a crop of one of the corpus's camera photos (TestImageLarge.jpg 5250x3450,
TestJFIF.jpg 4032x3024 turned upright, TestHDR.jpeg 1662x2493) at a common aspect ratio
(4:3, 3:2, 16:9, 1:1 and their portrait forms), sometimes turned by a quarter or mirrored,
scaled down to about 0.5-3 MP and saved at quality 85 (4:2:0; one in six progressive, as
on the web). Deterministic: the same COUNT gives the same files. Writes OUT_DIR/.complete
last, so an interrupted run is redone.
"""
import math
import os
import random
import sys
from concurrent.futures import ProcessPoolExecutor

from PIL import Image, ImageOps

SOURCES = ["TestImageLarge.jpg", "TestJFIF.jpg", "TestHDR.jpeg"]
ASPECTS = [(4, 3), (3, 2), (16, 9), (1, 1), (3, 4), (2, 3), (9, 16)]
_loaded = {}


def source(corpus, name):
    if name not in _loaded:
        with Image.open(os.path.join(corpus, name)) as img:
            _loaded[name] = ImageOps.exif_transpose(img.convert("RGB"))
    return _loaded[name]


def make(args):
    corpus, out, index = args
    rng = random.Random(1000 + index)
    img = source(corpus, SOURCES[index % len(SOURCES)])
    aw, ah = rng.choice(ASPECTS)
    aspect = aw / ah
    sw, sh = img.size
    # The largest crop of this aspect that fits, then 55-100 % of it, anywhere in the frame.
    cw = min(sw, sh * aspect)
    frac = rng.uniform(0.55, 1.0)
    cw, ch = int(cw * frac), int(cw * frac / aspect)
    x, y = rng.randint(0, sw - cw), rng.randint(0, sh - ch)
    crop = img.crop((x, y, x + cw, y + ch))
    # 0.5-3 MP, never enlarged.
    pixels = min(rng.uniform(0.5e6, 3.0e6), cw * ch)
    tw = max(1, round(math.sqrt(pixels * aspect)))
    th = max(1, round(tw / aspect))
    crop = crop.resize((tw, th), Image.LANCZOS, reducing_gap=3.0)
    turn = rng.random()
    if turn < 0.15:
        crop = crop.transpose(Image.ROTATE_90)
    elif turn < 0.25:
        crop = crop.transpose(Image.FLIP_LEFT_RIGHT)
    path = os.path.join(out, f"photo{index:04d}.jpg")
    crop.save(path + ".tmp", "JPEG", quality=85, progressive=(index % 6 == 5))
    os.replace(path + ".tmp", path)
    return crop.size


def main():
    corpus, out = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 500
    stamp = os.path.join(out, ".complete")
    if os.path.exists(stamp) and open(stamp).read().strip() == str(count):
        return
    os.makedirs(out, exist_ok=True)
    with ProcessPoolExecutor(max_workers=2) as pool:
        sizes = list(pool.map(make, [(corpus, out, i) for i in range(count)], chunksize=8))
    megapixels = sorted(w * h / 1e6 for w, h in sizes)
    total = sum(os.path.getsize(os.path.join(out, f"photo{i:04d}.jpg")) for i in range(count))
    print(f"made {count} photos: {megapixels[0]:.2f}-{megapixels[-1]:.2f} MP (median {megapixels[count // 2]:.2f}), "
          f"{total / count / 1024:.0f} KB each on average", file=sys.stderr)
    with open(stamp, "w") as f:
        f.write(f"{count}\n")


if __name__ == "__main__":
    main()
