#!/usr/bin/env python3
"""Makes the JPEG test fixtures and Pillow's reference pixels for JPEGCoderTests.

Run from anywhere:  python3 make_fixtures.py [CORPUS_DIR]
Needs a Pillow whose exif_transpose reads XMP orientation: Debian 12's 9.4 does not, and
its TestJFIF.jpg entries come out without the turn.
(CORPUS_DIR defaults to $WEBIMAGE_CORPUS, else Corpus/sdwebimage in this
repository.) Pillow decodes with libjpeg-turbo's default accurate integer IDCT and fancy
upsampling, as JPEGCoder does, so its pixels are an independent reference.

Writes into this folder:
- orientation-1.jpg ... orientation-8.jpg: a 48x32 pattern of six 16x16 colour blocks
  (upright), stored turned so that EXIF orientation N brings it upright again.
- cmyk-adobe.jpg: a CMYK JPEG as Pillow writes it (inverted, with an Adobe APP14 marker);
  cmyk-plain.jpg: the same bytes without the APP14 marker (plain CMYK polarity).
- references.json: for the corpus JPEGs, Pillow's RGB (upright, and as stored when EXIF
  or XMP turns it) at a 32x32 grid of sample points; the same for 400x263 thumbnails of
  TestImageLarge.jpg; for the CMYK files, every RGB pixel; the orientation pattern's
  block colours.
"""
import io
import json
import os
import sys

from PIL import Image, ImageChops, ImageOps

HERE = os.path.dirname(os.path.abspath(__file__))
GRID = 32

# Upright pattern: blocks (column, row) of 16x16 pixels, three across and two down.
BLOCKS = [
    [(230, 30, 30), (30, 200, 30), (30, 30, 230)],
    [(240, 240, 40), (230, 40, 230), (40, 230, 230)],
]

# The transpose that takes the upright pattern to what is stored under each orientation
# (the inverse of what a viewer applies; see Pillow's ImageOps.exif_transpose).
TO_STORED = {
    1: None,
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_90,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_270,
}


def grid_points(width, height):
    return [((2 * i + 1) * width // (2 * GRID), (2 * j + 1) * height // (2 * GRID))
            for j in range(GRID) for i in range(GRID)]


def samples(image):
    rgb = image.convert("RGB")
    out = bytearray()
    for x, y in grid_points(*rgb.size):
        out += bytes(rgb.getpixel((x, y)))
    return out.hex()


def make_orientation_fixtures(references):
    upright = Image.new("RGB", (48, 32))
    for row, colours in enumerate(BLOCKS):
        for column, colour in enumerate(colours):
            upright.paste(colour, (column * 16, row * 16, column * 16 + 16, row * 16 + 16))
    for orientation, method in TO_STORED.items():
        stored = upright if method is None else upright.transpose(method)
        exif = Image.Exif()
        exif[0x0112] = orientation
        path = os.path.join(HERE, f"orientation-{orientation}.jpg")
        stored.save(path, quality=95, subsampling=0, exif=exif.tobytes())
        check = ImageOps.exif_transpose(Image.open(path))
        assert check.size == upright.size, (orientation, check.size)
        worst = max(high for _, high in ImageChops.difference(check, upright).getextrema())
        assert worst < 16, (orientation, worst)
    references["orientationBlocks"] = [[list(c) for c in row] for row in BLOCKS]


def make_cmyk_fixtures(references):
    cmyk = Image.new("CMYK", (32, 32))
    for y in range(32):
        for x in range(32):
            cmyk.putpixel((x, y), (x * 8, y * 8, (x + y) * 4, ((x * y) % 32) * 8))
    buffer = io.BytesIO()
    cmyk.save(buffer, "JPEG", quality=90)
    adobe = buffer.getvalue()
    with open(os.path.join(HERE, "cmyk-adobe.jpg"), "wb") as f:
        f.write(adobe)
    references["cmyk"] = {}
    references["cmyk"]["cmyk-adobe.jpg"] = {"width": 32, "height": 32,
                                    "rgb": Image.open(io.BytesIO(adobe)).convert("RGB").tobytes().hex()}

    # Drop the APP14 marker: libjpeg then reads the same values with plain polarity.
    start = adobe.find(b"\xff\xee")
    assert start > 0
    length = int.from_bytes(adobe[start + 2:start + 4], "big")
    plain = adobe[:start] + adobe[start + 2 + length:]
    with open(os.path.join(HERE, "cmyk-plain.jpg"), "wb") as f:
        f.write(plain)
    # Pillow always assumes Adobe's inversion, so undo it before its CMYK->RGB formula.
    decoded = Image.open(io.BytesIO(plain))
    decoded.load()
    as_stored = Image.merge("CMYK", [ImageChops.invert(band) for band in decoded.split()])
    references["cmyk"]["cmyk-plain.jpg"] = {"width": 32, "height": 32, "rgb": as_stored.convert("RGB").tobytes().hex()}


def make_corpus_references(references, corpus):
    entries = {}
    for name in ["TestImage.jpg", "TestJFIF.jpg", "TestImageLarge.jpg", "MonochromeTestImage.jpg",
                 "TestICCProfile.jpg", "TestHDR.jpeg"]:
        stored = Image.open(os.path.join(corpus, name))
        stored.load()
        upright = ImageOps.exif_transpose(stored)
        entry = {"width": upright.size[0], "height": upright.size[1], "samples": samples(upright)}
        if stored.getexif().get(0x0112, 1) != 1:
            entry["stored"] = {"width": stored.size[0], "height": stored.size[1], "samples": samples(stored)}
        entries[name] = entry
        if name == "TestImageLarge.jpg":
            # A 400x300 thumbnail two ways: libjpeg's 1/4 DCT scaling (1313x863, what
            # JPEGCoder picks: the smallest scale at least twice the 400x263 result, as
            # Pillow's thumbnail with reducing_gap=2 asks draft for) then Lanczos; and
            # Lanczos from the full decode.
            scaled = Image.open(os.path.join(corpus, name))
            scaled.draft("RGB", (800, 526))
            assert scaled.size == (1313, 863), scaled.size
            references["thumbnail"] = {
                "width": 400, "height": 263,
                "samples": samples(scaled.resize((400, 263), Image.Resampling.LANCZOS)),
            }
            references["thumbnailFromFull"] = {
                "width": 400, "height": 263,
                "samples": samples(upright.resize((400, 263), Image.Resampling.LANCZOS)),
            }
    references["grid"] = GRID
    references["corpus"] = entries


def main():
    default = os.environ.get("WEBIMAGE_CORPUS") or os.path.join(HERE, "../../../../Corpus/sdwebimage")
    corpus = sys.argv[1] if len(sys.argv) > 1 else default
    references = {}
    make_orientation_fixtures(references)
    make_cmyk_fixtures(references)
    make_corpus_references(references, corpus)
    with open(os.path.join(HERE, "references.json"), "w") as f:
        json.dump(references, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
