#!/usr/bin/env python3
"""Reference decodes of SDWebImage's test images, for CorpusDecodeTests.

Decodes every raster file of the corpus with Pillow (and pillow_heif for HEIC/HEIF; Pillow
11+ reads AVIF itself) and writes references.json beside this script: per file the
format, the upright size, frame count, loop count, EXIF orientation, whether the codec is
lossy, and for the first frame a 16x16 grid of RGBA samples plus the mean of each channel
(colour premultiplied by alpha).

Orientation: ImageOps.exif_transpose turns JPEG/PNG/WebP pixels upright from the EXIF (or
XMP) orientation tag, as our decoders do by default. For HEIC/HEIF, libheif (inside
pillow_heif) already applies the container's irot/imir transforms and the EXIF tag must be
ignored (HEIF spec), so pillow_heif reports it only as info["original_orientation"] and
resets the EXIF tag; Pillow's AVIF plugin likewise turns irot/imir into pixels. The
"orientation" field is the EXIF value our decoder should report: the tag for
JPEG/PNG/WebP, pillow_heif's original_orientation for HEIF, and null when there is none.

Colour: an image carrying an ICC profile is converted to sRGB with Little CMS through
ImageCms (perceptual intent), as browsers show it and as our decoders do by default;
untagged images and PNG's gAMA/cHRM for sRGB itself are taken as sRGB.

Sample positions: x = floor((i + 0.5) * W / 16), y likewise, for i in 0..<16, row by row.

Usage: python3 make_references.py [corpus directory]
       (default: $WEBIMAGE_CORPUS, else the repository's Corpus/sdwebimage)
"""
import io
import json
import os
import sys

import numpy
import PIL
import pillow_heif
from PIL import Image, ImageCms, ImageOps

pillow_heif.register_heif_opener()

RASTER_EXTENSIONS = {"jpg", "jpeg", "png", "apng", "gif", "webp", "heic", "heics", "heif", "avif"}
GRID = 16


def iso_brand_format(data):
    """Our ImageFormat for an ISO-BMFF file, from its major brand (as SDWebImage does);
    a generic HEIF brand listing AVIF among its compatible brands is AVIF."""
    brand = data[8:12].decode("latin1")
    if brand in ("heic", "heix", "hevc", "hevx", "heim", "heis"):
        return "heic"
    if brand in ("mif1", "msf1"):
        end = min(int.from_bytes(data[0:4], "big"), len(data), 256)
        compatible = [data[i:i + 4].decode("latin1") for i in range(16, end - 3, 4)]
        return "avif" if ("avif" in compatible or "avis" in compatible) else "heif"
    if brand in ("avif", "avis"):
        return "avif"
    raise ValueError(f"unknown brand {brand}")


def webp_is_lossless(data):
    """Whether the first image bitstream in a WebP file is VP8L (lossless)."""
    lossy = data.find(b"VP8 ", 12)
    lossless = data.find(b"VP8L", 12)
    if lossless < 0:
        return False
    return lossy < 0 or lossless < lossy


def to_srgb(image, icc):
    """`image` converted from its ICC profile to sRGB (alpha kept), or as it is."""
    if not icc or image.mode not in ("RGB", "RGBA", "L", "CMYK"):
        return image
    source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
    srgb = ImageCms.createProfile("sRGB")
    mode = "RGBA" if image.mode == "RGBA" else "RGB"
    return ImageCms.profileToProfile(image, source, srgb, renderingIntent=ImageCms.Intent.PERCEPTUAL,
                                     outputMode=mode)


def describe(path):
    data = open(path, "rb").read()
    image = Image.open(path)
    fmt = image.format
    frame_count = getattr(image, "n_frames", 1)
    loop = image.info.get("loop")
    if fmt == "HEIF":
        our_format = iso_brand_format(data)
        orientation = image.info.get("original_orientation")
        lossy = True
    elif fmt == "AVIF":
        our_format = "avif"
        orientation = image.getexif().get(0x0112)
        lossy = True
    else:
        our_format = {"JPEG": "jpeg", "MPO": "jpeg", "PNG": "png", "GIF": "gif", "WEBP": "webp"}[fmt]
        orientation = image.getexif().get(0x0112)
        lossy = fmt in ("JPEG", "MPO") or (fmt == "WEBP" and not webp_is_lossless(data))
    image.seek(0)
    upright = ImageOps.exif_transpose(image)
    rgba = to_srgb(upright, image.info.get("icc_profile")).convert("RGBA")
    width, height = rgba.size
    pixels = rgba.load()
    samples = []
    for j in range(GRID):
        y = int((j + 0.5) * height / GRID)
        for i in range(GRID):
            x = int((i + 0.5) * width / GRID)
            samples.append(list(pixels[x, y]))
    # Colour means are of premultiplied values (r·a/255), so the colour a decoder leaves
    # under fully transparent pixels (Pillow keeps a GIF's palette colour, others write
    # black) does not count; alpha's mean is plain.
    values = numpy.asarray(rgba, dtype=numpy.float64).reshape(-1, 4)
    alpha = values[:, 3:4] / 255
    means = [round(float(m), 4) for m in (values[:, :3] * alpha).mean(axis=0)]
    means.append(round(float(values[:, 3].mean()), 4))
    return {
        "file": os.path.basename(path),
        "format": our_format,
        "lossy": lossy,
        "width": width,
        "height": height,
        "frameCount": frame_count,
        "loopCount": loop,
        "orientation": orientation,
        "samples": samples,
        "means": means,
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.environ.get("WEBIMAGE_CORPUS") or os.path.join(here, "../../../../Corpus/sdwebimage")
    corpus = sys.argv[1] if len(sys.argv) > 1 else default
    entries = []
    for name in sorted(os.listdir(corpus)):
        if name.rsplit(".", 1)[-1].lower() in RASTER_EXTENSIONS:
            entries.append(describe(os.path.join(corpus, name)))
    out = {
        "generator": f"Pillow {PIL.__version__}, pillow_heif {pillow_heif.__version__} "
                     f"(libheif {pillow_heif.libheif_version()})",
        "grid": GRID,
        "entries": entries,
    }
    with open(os.path.join(here, "references.json"), "w") as f:
        # One entry per line block, samples one row per line: small and diffable.
        f.write('{\n "generator": %s,\n "grid": %d,\n "entries": [\n' % (json.dumps(out["generator"]), GRID))
        for n, entry in enumerate(entries):
            rows = [entry["samples"][r * GRID:(r + 1) * GRID] for r in range(GRID)]
            head = {k: v for k, v in entry.items() if k != "samples"}
            text = json.dumps(head)[:-1] + ', "samples": [\n'
            text += ",\n".join("   " + json.dumps(row, separators=(",", ":"))[1:-1] for row in rows)
            text += "\n  ]}"
            f.write("  " + text + (",\n" if n + 1 < len(entries) else "\n"))
        f.write(" ]\n}\n")
    json.load(open(os.path.join(here, "references.json")))   # must parse back


if __name__ == "__main__":
    main()
