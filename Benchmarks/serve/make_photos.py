#!/usr/bin/env python3
"""Makes the image-service benchmark's photos: COUNT distinct JPEGs of 2040 px on the long side.

Usage: make_photos.py CORPUS_DIR OUT_DIR [COUNT]   (needs Pillow: run it with the benchmark's venv)

Like the photos of imgproxy's image-servers-benchmark (camera photos of about 2040 px), cut
from the corpus's three camera photos: TestImageLarge.jpg (5250x3450), TestJFIF.jpg (4032x3024;
its pixels are stored upright, its EXIF orientation 3 is the corpus's test of the tag and is
ignored here) and TestHDR.jpeg (1662x2493, portrait crops only). Each
photo scales its source by a random factor, crops a random 2040-px window at a common aspect
ratio (3:2, 4:3, 16:9, 1:1 or the portrait forms), is sometimes mirrored, and gets a small
random change of brightness, contrast and saturation, so no two are alike and none is a
resample of another. Saved at quality 90, 4:2:0, baseline, with no EXIF or ICC profile (so no
server has orientation or colour conversion work the others skip). Deterministic: the same
COUNT gives the same files. Writes OUT_DIR/.complete last, so an interrupted run is redone.
"""
import os
import random
import sys
from concurrent.futures import ProcessPoolExecutor

from PIL import Image, ImageEnhance

LONG_SIDE = 2040
SOURCES = ["TestImageLarge.jpg", "TestJFIF.jpg", "TestHDR.jpeg"]
LANDSCAPE = [(3, 2), (4, 3), (16, 9), (1, 1)]
PORTRAIT = [(2, 3), (3, 4)]
_loaded = {}


def source(corpus, name):
    if name not in _loaded:
        with Image.open(os.path.join(corpus, name)) as img:
            _loaded[name] = img.convert("RGB")
    return _loaded[name]


def make(args):
    corpus, out, index = args
    rng = random.Random(2040 + index)
    name = SOURCES[index % len(SOURCES)]
    img = source(corpus, name)
    sw, sh = img.size
    aspects = PORTRAIT if sw < LONG_SIDE else (LANDSCAPE + PORTRAIT if sh >= LONG_SIDE * 0.75 else LANDSCAPE)
    aw, ah = rng.choice(aspects)
    if aw >= ah:
        tw, th = LONG_SIDE, round(LONG_SIDE * ah / aw)
    else:
        tw, th = round(LONG_SIDE * aw / ah), LONG_SIDE
    # The smallest scale at which the window fits, up to 1 (never enlarged beyond the source).
    least = max(tw / sw, th / sh)
    scale = rng.uniform(least, max(least, min(1.0, least * 2.4)))
    scaled_w, scaled_h = max(tw, round(sw * scale)), max(th, round(sh * scale))
    # Crop the window's footprint in source pixels first, then resample only that.
    fx, fy = sw / scaled_w, sh / scaled_h
    x = rng.randint(0, scaled_w - tw)
    y = rng.randint(0, scaled_h - th)
    box = (x * fx, y * fy, (x + tw) * fx, (y + th) * fy)
    photo = img.resize((tw, th), Image.LANCZOS, box=box, reducing_gap=3.0)
    if rng.random() < 0.5:
        photo = photo.transpose(Image.FLIP_LEFT_RIGHT)
    photo = ImageEnhance.Brightness(photo).enhance(rng.uniform(0.92, 1.08))
    photo = ImageEnhance.Contrast(photo).enhance(rng.uniform(0.92, 1.08))
    photo = ImageEnhance.Color(photo).enhance(rng.uniform(0.9, 1.1))
    path = os.path.join(out, f"photo-{index + 1:03d}.jpg")
    photo.save(path + ".tmp", "JPEG", quality=90, subsampling=2, optimize=False, progressive=False)
    os.replace(path + ".tmp", path)
    return photo.size


def main():
    corpus, out = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    if os.path.exists(os.path.join(out, ".complete")):
        return
    os.makedirs(out, exist_ok=True)
    with ProcessPoolExecutor(max_workers=2) as pool:
        sizes = list(pool.map(make, [(corpus, out, i) for i in range(count)]))
    total = sum(os.path.getsize(os.path.join(out, f"photo-{i + 1:03d}.jpg")) for i in range(count))
    with open(os.path.join(out, ".complete"), "w") as f:
        f.write(f"{count}\n")
    print(f"made {count} photos in {out}: {len(set(sizes))} sizes, {total / count / 1024:.0f} KiB on average")


if __name__ == "__main__":
    main()
