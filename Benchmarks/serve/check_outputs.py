#!/usr/bin/env python3
"""Checks one server's results for one format and prints their mean size.

Usage: check_outputs.py DIR FORMAT BOX   (FORMAT: jpg, webp, avif or png; needs Pillow 11.2+
for AVIF: run it with the benchmark's venv)

Every file in DIR must be an image of FORMAT whose larger side is BOX (fit inside BOX x BOX,
from photos larger than that). Prints `files=N mean_bytes=M sizes=K` and exits 1 naming the
first file that fails, so a server answering with the wrong format, size or an error page
cannot win the benchmark.
"""
import os
import sys

from PIL import Image

EXPECTED = {"jpg": "JPEG", "webp": "WEBP", "avif": "AVIF", "png": "PNG"}


def main():
    folder, fmt, box = sys.argv[1], sys.argv[2], int(sys.argv[3])
    names = sorted(n for n in os.listdir(folder) if not n.startswith("."))
    if not names:
        sys.exit(f"{folder}: no results")
    total = 0
    sizes = set()
    for name in names:
        path = os.path.join(folder, name)
        try:
            with Image.open(path) as img:
                kind, size = img.format, img.size
        except Exception as error:  # an error page, a truncated body
            sys.exit(f"{path}: not an image ({error})")
        if kind != EXPECTED[fmt]:
            sys.exit(f"{path}: {kind}, expected {EXPECTED[fmt]}")
        if max(size) != box:
            sys.exit(f"{path}: {size[0]}x{size[1]}, expected the larger side to be {box}")
        total += os.path.getsize(path)
        sizes.add(size)
    print(f"files={len(names)} mean_bytes={total / len(names):.0f} sizes={len(sizes)}")


if __name__ == "__main__":
    main()
