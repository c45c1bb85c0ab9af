#!/usr/bin/env python3
"""How often our decoder gives exactly Pillow's pixels, over a folder of images.

Usage: scripts/pillow-agreement.py --webimage PATH/TO/webimage FOLDER [--list]

For every file whose extension is a format both read (JPEG, PNG, GIF, WebP, BMP, TIFF,
AVIF; HEIC through pillow-heif when installed), decodes the first frame twice:
- Pillow: Image.open, ImageOps.exif_transpose, convert("RGBA") (16-bit grey: Pillow's
  samples rounded to 8 bits here, where its own conversion clips; see SIXTEEN_BIT_GREY);
- ours: `webimage decode FILE -o OUT.png --metadata icc --cmyk-profile naive` (source
  pixels kept, and CMYK without a profile converted by the naive formula rather than our
  default CMYK profile, as Pillow does both without ImageCms), then that PNG read back by
  Pillow.
Each file lands in one class: identical (the colour under a pixel both make fully
transparent aside); same size but different pixels (the largest
difference printed); different sizes; only Pillow decodes; only we decode; neither; and
ours crashed or hung (a signal or the 20-s limit: a bug whatever Pillow does).

The corpus is not in this repository (issue 14 asks for "another project's test suite":
Pillow's own Tests/images is the one used, fetched separately). Needs Pillow (and numpy).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy
from PIL import Image, ImageOps

try:
    import pillow_heif
    pillow_heif.register_heif_opener()
    HEIF = {".heic", ".heif"}
except ImportError:
    HEIF = set()

EXTENSIONS = {".jpg", ".jpeg", ".mpo", ".png", ".apng", ".gif", ".webp", ".bmp", ".tif", ".tiff", ".avif"} | HEIF


# Pillow's modes for 16-bit (and 32-bit integer) grey. Its own conversion of them to 8 bits
# clips (a value above 255 becomes 255: a 16-bit photo turns white), which no browser does;
# issue 14 asks for rounding, round(v / 257), as libpng's png_set_scale_16. For these the
# reference keeps Pillow's decoded samples and its alpha, and rounds the grey itself.
SIXTEEN_BIT_GREY = {"I;16", "I;16B", "I;16L", "I;16N", "I"}


def pillow_pixels(path):
    """Pillow's RGBA for the first frame, and whether its 16-bit grey was rounded here."""
    with Image.open(path) as image:
        image.seek(0)
        upright = ImageOps.exif_transpose(image)
        rgba = upright.convert("RGBA")
        if upright.mode not in SIXTEEN_BIT_GREY:
            return rgba.size, rgba.tobytes(), False
        values = numpy.asarray(upright).astype(numpy.int64)
        grey = numpy.clip(numpy.rint(values / 257), 0, 255).astype(numpy.uint8)
        pixels = numpy.array(rgba)
        for channel in range(3):
            pixels[..., channel] = grey
        return rgba.size, pixels.tobytes(), True


def our_pixels(binary, path, folder):
    out = os.path.join(folder, "out.png")
    if os.path.exists(out):
        os.remove(out)
    try:
        run = subprocess.run([binary, "decode", path, "-o", out, "--metadata", "icc", "--cmyk-profile", "naive"],
                             capture_output=True, timeout=20)
    except subprocess.TimeoutExpired:
        return "hang", None
    if run.returncode < 0:
        return "crash", f"signal {-run.returncode}"
    if run.returncode != 0 or not os.path.exists(out):
        return "error", run.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
    with Image.open(out) as image:
        rgba = image.convert("RGBA")
        return "ok", (rgba.size, rgba.tobytes())


def same_pixels(theirs, ours):
    """Equal RGBA, except that the colour under a pixel both make fully transparent does
    not count: it never shows (Pillow keeps a GIF's palette colour there, we keep 0)."""
    if theirs == ours:
        return True
    if len(theirs) != len(ours):
        return False
    for index in range(0, len(theirs), 4):
        a, b = theirs[index:index + 4], ours[index:index + 4]
        if a != b and not (a[3] == 0 and b[3] == 0):
            return False
    return True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--webimage", required=True)
    parser.add_argument("--list", action="store_true", help="print every file's class")
    parser.add_argument("folder")
    args = parser.parse_args()
    files = sorted(f for f in os.listdir(args.folder)
                   if os.path.splitext(f)[1].lower() in EXTENSIONS and os.path.isfile(os.path.join(args.folder, f)))
    classes = {}
    details = []
    rounded = []
    with tempfile.TemporaryDirectory() as scratch:
        for name in files:
            path = os.path.join(args.folder, name)
            try:
                theirs = pillow_pixels(path)
            except Exception as error:  # Pillow refuses hostile files in many ways
                theirs = None
                their_error = type(error).__name__
            if theirs is not None and theirs[2]:
                rounded.append(name)
            status, ours = our_pixels(args.webimage, path, scratch)
            if status in ("crash", "hang"):
                kind = f"ours {status}ed"
            elif theirs is None and status != "ok":
                kind = "neither decodes"
            elif theirs is None:
                kind = "only ours decodes"
            elif status != "ok":
                kind = "only Pillow decodes"
            elif theirs[0] != ours[0]:
                kind = "different sizes"
            elif same_pixels(theirs[1], ours[1]):
                kind = "identical"
            else:
                diff = max(abs(a - b) for a, b in zip(theirs[1], ours[1]))
                kind = "same size, pixels differ"
                details.append(f"{name}: max difference {diff}")
            classes.setdefault(kind, []).append(name)
            if args.list:
                print(f"{kind:28} {name}")
    total = len(files)
    both = sum(len(classes.get(k, [])) for k in ("identical", "same size, pixels differ", "different sizes"))
    print(f"{total} files in formats both read")
    for kind in sorted(classes, key=lambda k: -len(classes[k])):
        print(f"  {kind:28} {len(classes[kind]):5}  {len(classes[kind]) / total:6.1%}")
    if both:
        print(f"identical where both decode: {len(classes.get('identical', [])) / both:.1%} of {both}")
    if rounded:
        print(f"16-bit grey, Pillow's samples rounded instead of clipped: {len(rounded)} files")
    for line in details:
        print("  " + line)
    for kind in ("only Pillow decodes", "only ours decodes", "different sizes", "ours crashed", "ours hanged"):
        if classes.get(kind):
            print(f"{kind}: {' '.join(classes[kind])}")
    return 1 if classes.get("ours crashed") or classes.get("ours hanged") else 0


if __name__ == "__main__":
    sys.exit(main())
