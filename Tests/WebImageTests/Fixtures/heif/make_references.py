#!/usr/bin/env python3
"""Writes the HEIC/HEIF fixtures and reference samples the HEIFCoder tests compare against.

Reference decoder: Pillow + pillow_heif (its own libheif and libde265 builds, independent of
the system libheif 1.15 the coder links). Run from this folder:

    WEBIMAGE_CORPUS=/path/to/corpus/sdwebimage python3 make_references.py

references.json holds, per image, the size pillow_heif reports (after the file's transforms)
and the RGBA of a grid of sample points (columns `xs` by rows `ys`, row-major), upright.
orientation-N.heic are 64x48 quadrant images saved with EXIF orientation N, which libheif
turns into irot/imir properties (no EXIF orientation is kept in the file).
"""
import io
import json
import os
import sys

import pillow_heif
from PIL import Image

pillow_heif.register_heif_opener()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # fixture_tools.py, shared with the other scripts
sys.dont_write_bytecode = True  # no __pycache__ inside the bundled Fixtures folder
from fixture_tools import grid_samples, quadrants  # noqa: E402
CORPUS = os.environ.get("WEBIMAGE_CORPUS", os.path.join(HERE, "../../../../Corpus/sdwebimage"))


def main():
    refs = {}
    for name in ["TestImage.heic", "TestImage.heif", "TestHDR.heic", "TestImageAnimated.heics"]:
        heif = pillow_heif.open_heif(os.path.join(CORPUS, name), convert_hdr_to_8bit=True)
        entry = grid_samples(heif.to_pillow())
        entry["frames"] = len(heif)
        entry["bitDepth"] = heif.info.get("bit_depth")
        refs[name] = entry
    source = quadrants()
    for orientation in range(1, 9):
        exif = Image.Exif()
        exif[0x0112] = orientation
        name = f"orientation-{orientation}.heic"
        source.save(os.path.join(HERE, name), "HEIF", exif=exif.tobytes(), quality=90)
        heif = pillow_heif.open_heif(os.path.join(HERE, name))
        entry = grid_samples(heif.to_pillow(), columns=8, rows=6)
        entry["orientation"] = orientation
        refs[name] = entry
    with open(os.path.join(HERE, "references.json"), "w") as f:
        json.dump(refs, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
