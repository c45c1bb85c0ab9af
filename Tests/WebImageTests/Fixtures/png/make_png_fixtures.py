#!/usr/bin/env python3
"""Makes the PNG/APNG test fixtures and their reference decodes (run from any directory).

1. matrix/*.png: every colour type x bit depth x interlace (plus tRNS variants), written by
   the small PNG writer below (Pillow cannot write Adam7 or most low bit depths).
2. A few APNG and eXIf files made with Pillow.
3. references.json: for every fixture and every PNG of SDWebImage's corpus, each frame's
   RGBA as decoded by Pillow, reduced to an FNV-1a 64 hash of the bytes plus a few pixels.

Pillow's APNG "dispose to previous" after an OVER blend is patched (see
_keep_previous_canvas). Pillow's decode becomes RGBA with the rules the coder documents: 16-bit samples are
scaled to 8 bits rounded (v * 255 / 65535), tRNS makes matching samples transparent
(compared at the file's own depth), no gamma correction. Pillow keeps only the high byte of
16-bit colour, so 16-bit files are read here with pypng (pure Python, every sample exact);
where Pillow's convert("RGBA") does not follow the rules for low-depth grey with tRNS, the
RGBA is built from Pillow's samples.

Usage: python3 make_png_fixtures.py [corpus_dir]
"""
import io
import os
import random
import struct
import sys
import zlib

import png  # pypng: exact 16-bit samples
from PIL import Image, PngImagePlugin


def _keep_previous_canvas(original):
    """Pillow composites an OVER-blended APNG frame into the very canvas it saved for
    "dispose to previous", so a later restore brings back the composited frame instead of
    the canvas before it (dispose_op 2 then acts like 0). This wrapper keeps a copy of the
    saved canvas, which gives the APNG specification's behaviour (and browsers')."""
    def load_end(self):
        saved = self._prev_im.copy() if getattr(self, "_prev_im", None) is not None else None
        original(self)
        if saved is not None:
            self._prev_im = saved
    return load_end


PngImagePlugin.PngImageFile.load_end = _keep_previous_canvas(PngImagePlugin.PngImageFile.load_end)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # fixture_tools.py, shared with the other scripts
sys.dont_write_bytecode = True  # no __pycache__ inside the bundled Fixtures folder
from fixture_tools import compact_json, fnv1a64, pack_bits  # noqa: E402
CORPUS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "../../../../Corpus/sdwebimage")
W, H = 17, 13  # odd sizes leave partial Adam7 blocks on both edges


def chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)


def pack_row(samples, depth):
    """Packs one row of integer samples at `depth` bits (MSB first), padded to a byte."""
    if depth == 8:
        return bytes(samples)
    if depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    return pack_bits(samples, depth)


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def write_png(path, width, height, depth, color_type, pixels, interlace, extra=b""):
    """pixels[y][x] is a tuple of channel samples. Filter type varies by row to test all five."""
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color_type]
    bpp = max(1, channels * depth // 8)

    def encode_rows(rows):
        raw = bytearray()
        prev = None
        for index, row in enumerate(rows):
            line = pack_row([s for px in row for s in px], depth)
            ftype = index % 5
            filtered = bytearray()
            for i, b in enumerate(line):
                a = line[i - bpp] if i >= bpp else 0
                up = prev[i] if prev is not None else 0
                c = prev[i - bpp] if prev is not None and i >= bpp else 0
                if ftype == 0: v = b
                elif ftype == 1: v = b - a
                elif ftype == 2: v = b - up
                elif ftype == 3: v = b - ((a + up) >> 1)
                else:
                    p = a + up - c
                    pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else (up if pb <= pc else c)
                    v = b - pred
                filtered.append(v & 0xFF)
            raw.append(ftype)
            raw += filtered
            prev = line
        return bytes(raw)

    if interlace:
        data = b""
        for x0, y0, dx, dy in ADAM7:
            rows = [[pixels[y][x] for x in range(x0, width, dx)] for y in range(y0, height, dy)]
            rows = [r for r in rows if r]
            if rows:
                data += encode_rows(rows)
    else:
        data = encode_rows(pixels)
    ihdr = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, interlace)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra + chunk(b"IDAT", zlib.compress(data, 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


def sample(rng, depth, x, y, channel):
    top = (1 << depth) - 1
    if (x + y + channel) % 3 == 0:
        return rng.randint(0, top)
    return (x * 37 + y * 91 + channel * 53) * (top + 1) // (W * 37 + H * 91 + 4 * 53) & top


def make_matrix():
    names = []
    for color_type, depths in [(0, [1, 2, 4, 8, 16]), (2, [8, 16]), (3, [1, 2, 4, 8]), (4, [8, 16]), (6, [8, 16])]:
        channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color_type]
        for depth in depths:
            for trns in ([False, True] if color_type in (0, 2, 3) else [False]):
                # Same pixels for the plain and the Adam7 file, so both must decode alike.
                rng = random.Random(color_type * 1000 + depth * 10 + trns)
                top = (1 << depth) - 1
                extra = b""
                if color_type == 3:
                    count = 1 << depth
                    palette = bytes(rng.randint(0, 255) for _ in range(count * 3))
                    extra += chunk(b"PLTE", palette)
                    pixels = [[(rng.randint(0, top),) for x in range(W)] for y in range(H)]
                    if trns:  # fewer entries than the palette: the rest stay opaque
                        extra += chunk(b"tRNS", bytes(rng.choice([0, 255, rng.randint(1, 254)]) for _ in range(max(1, count // 2))))
                else:
                    pixels = [[tuple(sample(rng, depth, x, y, c) for c in range(channels)) for x in range(W)] for y in range(H)]
                    if depth == 16 and trns:
                        # Pillow keeps only 8 bits of 16-bit RGB; samples of the form
                        # v * 257 make its comparison as exact as the 16-bit one.
                        pixels = [[tuple((s >> 8) * 257 for s in px) for px in row] for row in pixels]
                    if trns:
                        key = pixels[H // 2][W // 2]
                        for y in range(0, H, 3):  # make the key colour common
                            pixels[y][y % W] = key
                        extra += chunk(b"tRNS", b"".join(struct.pack(">H", s) for s in key))
                for interlace in (0, 1):
                    name = f"ct{color_type}_d{depth}{'_trns' if trns else ''}{'_adam7' if interlace else ''}.png"
                    write_png(os.path.join(HERE, "matrix", name), W, H, depth, color_type, pixels, interlace, extra)
                    names.append("matrix/" + name)
    return names


def make_animations():
    """APNGs exercising dispose (none/background/previous) and blend (source/over) with
    binary alpha, where Pillow's compositing is exact; and an eXIf-oriented still PNG."""
    rng = random.Random(11)
    size = (24, 18)

    def frame(color, box):
        im = Image.new("RGBA", size, (0, 0, 0, 0))
        for y in range(box[1], box[3]):
            for x in range(box[0], box[2]):
                if (x * 7 + y * 3) % 5:
                    im.putpixel((x, y), color)
        return im

    frames = [frame((rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255), 255), (i * 3, i * 2, i * 3 + 10, i * 2 + 8)) for i in range(5)]
    names = []
    for name, disposal, blend in [("dispose_none_over.png", 0, 1), ("dispose_background_over.png", 1, 1),
                                  ("dispose_previous_over.png", [0, 2, 2, 1, 0], 1), ("dispose_none_source.png", 0, 0)]:
        frames[0].save(os.path.join(HERE, name), save_all=True, append_images=frames[1:], duration=[40, 50, 0, 120, 70],
                       loop=3, disposal=disposal, blend=blend, optimize=False)
        names.append(name)
    # EXIF orientation 6 on a non-square image with a distinct corner.
    im = Image.new("RGB", (8, 5), (10, 20, 30))
    im.putpixel((0, 0), (255, 0, 0))
    im.putpixel((7, 0), (0, 255, 0))
    exif = Image.Exif()
    exif[0x0112] = 6
    im.save(os.path.join(HERE, "exif_orientation6.png"), exif=exif.tobytes())
    names.append("exif_orientation6.png")
    return names


def transparent_key(im):
    t = im.info.get("transparency")
    return t if isinstance(t, (int, tuple)) else None


def rgba16_rounded(data):
    """RGBA of a 16-bit PNG's (only) image, each sample scaled to 8 bits with rounding and
    tRNS matched at 16 bits, from pypng's exact decode."""
    width, height, rows, info = png.Reader(bytes=data).asDirect()
    planes = info["planes"]
    out = bytearray()
    for row in rows:
        for x in range(width):
            px = row[x * planes:(x + 1) * planes]
            if planes == 1:
                px = [px[0], px[0], px[0], 65535]
            elif planes == 2:
                px = [px[0], px[0], px[0], px[1]]
            elif planes == 3:
                px = list(px) + [65535]
            out += bytes((v * 255 + 32767) // 65535 for v in px)
    return bytes(out)


def rgba_of(im, ihdr, data):
    """RGBA bytes of the current Pillow frame under the documented rules."""
    depth, color_type = ihdr
    if depth == 16 and getattr(im, "n_frames", 1) == 1:
        return rgba16_rounded(data)
    if color_type == 0 and depth < 8:
        # Pillow's samples are exact (L scaled); build RGBA here.
        key = transparent_key(im)
        high = list(im.convert("L").tobytes())
        raw = [v * ((1 << depth) - 1) // 255 for v in high]
        out = bytearray()
        for h, r in zip(high, raw):
            out += bytes((h, h, h, 0 if key is not None and r == key else 255))
        return bytes(out)
    return im.convert("RGBA").tobytes()


def describe(path):
    with open(path, "rb") as f:
        data = f.read()
    depth, color_type = data[24], data[25]
    im = Image.open(io.BytesIO(data))
    frames = []
    count = getattr(im, "n_frames", 1)
    for index in range(count):
        im.seek(index)
        im.load()
        rgba = rgba_of(im, (depth, color_type), data)
        w, h = im.size
        points = [(0, 0), (w - 1, 0), (w // 2, h // 2), (0, h - 1), (w - 1, h - 1), (w // 3, h // 5)]
        frames.append({
            "fnv1a64": fnv1a64(rgba),
            "durationMilliseconds": im.info.get("duration", 0) if count > 1 else 0,
            "samples": [[x, y] + list(rgba[(y * w + x) * 4:(y * w + x) * 4 + 4]) for x, y in points],
        })
    return {"width": im.size[0], "height": im.size[1], "loop": im.info.get("loop", 1) if count > 1 else 1,
            "orientation": im.getexif().get(0x0112, 1) if "exif" in im.info else 1, "frames": frames}


def main():
    names = make_matrix() + make_animations()
    refs = {name: describe(os.path.join(HERE, name)) for name in names}
    for name in ["TestImage.png", "IndexedPNG.png", "RGBA16PNG.png", "TestEXIF.png", "TestImageLarge.png", "TestImageAnimated.apng"]:
        refs["corpus/" + name] = describe(os.path.join(CORPUS, name))
    with open(os.path.join(HERE, "references.json"), "w") as f:
        # One line per file keeps the diff of a regenerated reference readable.
        f.write(compact_json(refs))


if __name__ == "__main__":
    main()
