#!/usr/bin/env python3
"""Writes the AVIF fixtures and reference samples the AVIFCoder tests compare against.

Reference decoder and fixture encoder: Pillow's native AVIF plugin (Pillow 11+, its own
libavif build, independent of the system libavif 0.11 the coder links). Run from this folder:

    WEBIMAGE_CORPUS=/path/to/corpus/sdwebimage python3 make_references.py

references.json holds, per image and frame, the RGBA of a grid of sample points (columns
`xs` by rows `ys`, row-major), upright (Pillow reports irot/imir as an EXIF orientation,
which exif_transpose applies).
- orientation-N.avif: 64x48 quadrant image saved with EXIF orientation N, which Pillow stores
  as irot/imir properties.
- alpha.avif: 32x24 with a horizontal alpha ramp.
- animated.avif: an AVIF sequence of three 32x24 flat frames lasting 100, 200 and 300 ms.
"""
import json
import os
import sys

from PIL import Image, ImageOps

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # fixture_tools.py, shared with the other scripts
sys.dont_write_bytecode = True  # no __pycache__ inside the bundled Fixtures folder
from fixture_tools import grid_samples, quadrants  # noqa: E402
CORPUS = os.environ.get("WEBIMAGE_CORPUS", os.path.join(HERE, "../../../../Corpus/sdwebimage"))


def main():
    refs = {}
    with Image.open(os.path.join(CORPUS, "TestHDR.avif")) as im:
        entry = grid_samples(ImageOps.exif_transpose(im))
        entry["frames"] = getattr(im, "n_frames", 1)
        refs["TestHDR.avif"] = entry

    source = quadrants()
    for orientation in range(1, 9):
        exif = Image.Exif()
        exif[0x0112] = orientation
        name = f"orientation-{orientation}.avif"
        source.save(os.path.join(HERE, name), "AVIF", exif=exif.tobytes(), quality=90)
        with Image.open(os.path.join(HERE, name)) as im:
            entry = grid_samples(ImageOps.exif_transpose(im), columns=8, rows=6)
            entry["orientation"] = orientation
            refs[name] = entry

    ramp = Image.new("RGBA", (32, 24))
    for x in range(32):
        for y in range(24):
            ramp.putpixel((x, y), (40, 160 if y < 12 else 60, 220, min(255, 8 * x + 7)))
    ramp.save(os.path.join(HERE, "alpha.avif"), "AVIF", quality=100)
    with Image.open(os.path.join(HERE, "alpha.avif")) as im:
        refs["alpha.avif"] = grid_samples(im, columns=8, rows=6)

    colours = [(230, 30, 30), (30, 200, 40), (20, 40, 210)]
    frames = [Image.new("RGB", (32, 24), c) for c in colours]
    frames[0].save(os.path.join(HERE, "animated.avif"), "AVIF", save_all=True,
                   append_images=frames[1:], duration=[100, 200, 300], quality=90)
    with Image.open(os.path.join(HERE, "animated.avif")) as im:
        entry = dict(grid_samples(im, columns=4, rows=3), frames=im.n_frames, durations=[], frameSamples=[])
        for index in range(im.n_frames):
            im.seek(index)
            im.load()  # Pillow fills in the frame's duration when it decodes it
            entry["durations"].append(im.info.get("duration"))
            entry["frameSamples"].append(grid_samples(im, columns=4, rows=3))
        refs["animated.avif"] = entry

    with open(os.path.join(HERE, "references.json"), "w") as f:
        json.dump(refs, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
