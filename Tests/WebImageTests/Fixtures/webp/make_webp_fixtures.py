#!/usr/bin/env python3
"""Makes the small WebP fixtures and the reference decodes WebPCoderTests compares against.

Run from anywhere:  python3 make_webp_fixtures.py [corpus-dir]
(corpus-dir defaults to $WEBIMAGE_CORPUS, else the repository's Corpus/sdwebimage).

Pillow decodes with its own bundled libwebp (a different release from the system one the
coder links), composited through libwebp's animation decoder. libwebp's decoders are
deterministic, so the coder must give the same bytes: references.json holds, per file,
canvas size, frame count, loop count, frame durations in seconds (Pillow's millisecond
durations with SDWebImage's rule: 10 ms or less -> 0.1 s; one-frame files 0), whether
the file declares alpha, and a CRC-32 of each frame's RGBA bytes as decoded (stored
orientation; Pillow does not apply EXIF).
"""
import io
import os
import sys
import zlib

import numpy as np
from PIL import Image, features

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # fixture_tools.py, shared with the other scripts
sys.dont_write_bytecode = True  # no __pycache__ inside the bundled Fixtures folder
from fixture_tools import compact_json  # noqa: E402


def quadrants(w, h):
    a = np.zeros((h, w, 3), dtype=np.uint8)
    a[: h // 2, : w // 2] = (230, 30, 30)
    a[: h // 2, w // 2:] = (30, 200, 40)
    a[h // 2:, : w // 2] = (20, 40, 220)
    a[h // 2:, w // 2:] = (240, 240, 240)
    a[0, 0] = (0, 0, 0)
    return Image.fromarray(a, "RGB")


def exif_with_orientation(value):
    exif = Image.Exif()
    exif[0x0112] = value
    return exif.tobytes()


def gradient_rgba(w, h, seed):
    y, x = np.mgrid[0:h, 0:w]
    a = np.stack([(x * 16 + seed * 40) % 256, (y * 20 + seed * 10) % 256, (x * y * 3 + seed) % 256,
                  ((x + y) * 12 + seed * 60) % 256], axis=-1).astype(np.uint8)
    return Image.fromarray(a, "RGBA")


def fixtures():
    out = {}
    buf = io.BytesIO()
    quadrants(12, 8).save(buf, "WEBP", lossless=True, exif=exif_with_orientation(6))
    out["orientation_6.webp"] = buf.getvalue()
    buf = io.BytesIO()
    gradient_rgba(16, 12, 0).save(buf, "WEBP", lossless=True, exact=True)
    out["lossless_alpha.webp"] = buf.getvalue()
    frames = [gradient_rgba(16, 16, s) for s in range(4)]
    buf = io.BytesIO()
    frames[0].save(buf, "WEBP", save_all=True, append_images=frames[1:], lossless=True, exact=True,
                   duration=[40, 70, 5, 120], loop=3)
    out["animated_lossless.webp"] = buf.getvalue()
    return out


def crc(rgba):
    return zlib.crc32(np.ascontiguousarray(rgba).tobytes())


def reference(path):
    im = Image.open(path)
    n = getattr(im, "n_frames", 1)
    crcs, durations = [], []
    for i in range(n):
        im.seek(i)
        crcs.append(crc(np.array(im.convert("RGBA"))))
        ms = im.info.get("duration", 0)
        durations.append(0.1 if ms <= 10 else ms / 1000)
    if n == 1:
        durations = [0]
    with open(path, "rb") as fh:
        data = fh.read()
    declares_alpha = data[12:16] == b"VP8X" and bool(data[20] & 0x10) or data[12:16] == b"VP8L" and bool(data[24] & 0x10)
    return {"width": im.size[0], "height": im.size[1], "frameCount": n,
            "loopCount": im.info.get("loop", 0) if n > 1 else 1,
            "durations": [round(d, 4) for d in durations], "hasAlpha": declares_alpha, "crc32": crcs}


def main():
    corpus = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("WEBIMAGE_CORPUS", os.path.join(HERE, "../../../../Corpus/sdwebimage"))
    refs = {}
    for name, data in fixtures().items():
        with open(os.path.join(HERE, name), "wb") as fh:
            fh.write(data)
        refs[name] = reference(os.path.join(HERE, name))
    for name in ["TestImageStatic.webp", "TestImageAnimated.webp", "TestAnimatedImageMemory.webp"]:
        refs[name] = reference(os.path.join(corpus, name))
    with open(os.path.join(HERE, "references.json"), "w") as fh:
        fh.write(compact_json(refs))
    print("Pillow's libwebp:", features.version("webp"))
    for name, ref in refs.items():
        print(f"{name}: {ref['width']}x{ref['height']} frames={ref['frameCount']} loop={ref['loopCount']} "
              f"durations={ref['durations']} alpha={ref['hasAlpha']}")


if __name__ == "__main__":
    main()
