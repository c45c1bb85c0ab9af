#!/usr/bin/env python3
"""Makes the BMP test fixtures and their reference decodes by Pillow.

Pillow writes the 1/8/24/32-bit files it supports; the small writer below makes the
variants Pillow cannot write (4-bit, 16-bit 555/565, V4/V5 alpha masks, top-down rows,
OS/2 core headers, RLE8/RLE4). references.json holds, per file, an FNV-1a 64 hash of the
RGBA bytes Pillow decodes plus a few pixels (same format as ../png/references.json).

Where the coder's documented rules differ from Pillow's defaults, the reference says so:
- plain (BI_RGB) 32-bit pixels are opaque in both (Pillow's default, and browsers'),
  whatever the fourth byte holds: pillow_32bit_alpha.bmp is Pillow's own RGBA save, whose
  alpha only Pillow's USE_RAW_ALPHA would read;
- pixels run-length data skips: Pillow gives them colour index 0, the coder makes them
  transparent; the RLE fixtures never use index 0 otherwise, so those pixels are found
  in Pillow's own decode and set to (0, 0, 0, 0).

Usage: python3 make_bmp_fixtures.py
"""
import io
import os
import sys
import random
import struct

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # fixture_tools.py, shared with the other scripts
sys.dont_write_bytecode = True  # no __pycache__ inside the bundled Fixtures folder
from fixture_tools import compact_json, fnv1a64, pack_bits  # noqa: E402
W, H = 13, 9  # odd width: every depth needs row padding
rng = random.Random(2024)


def bmp(path, header_size, width, height, bits, compression, pixel_data, palette=(), masks=None, colors_used=0):
    """Writes a bitmap; `height` negative for top-down; `masks` after a 40-byte header or inside a V2+ header."""
    entry = 3 if header_size == 12 else 4
    table = b"".join(bytes((b, g, r)) + (b"" if entry == 3 else b"\x00") for r, g, b in palette)
    if header_size == 12:
        info = struct.pack("<IHHHH", 12, width, height, 1, bits)
    else:
        info = struct.pack("<IiiHHIIiiII", header_size, width, height, 1, bits, compression, len(pixel_data), 2835, 2835, colors_used, 0)
        extra = b""
        if masks and header_size >= 52:
            extra = struct.pack("<4I", *(list(masks) + [0])[:4])
        info += extra
        if header_size >= 108:
            info += struct.pack("<I", 0x73524742)  # 'sRGB'
        info += b"\x00" * (header_size - len(info))
        if masks and header_size == 40:
            info += struct.pack(f"<{len(masks)}I", *masks)
    offset = 14 + len(info) + len(table)
    data = b"BM" + struct.pack("<IHHI", offset + len(pixel_data), 0, 0, offset) + info + table + pixel_data
    with open(os.path.join(HERE, path), "wb") as f:
        f.write(data)


def rows_bottom_up(rows, top_down=False):
    return rows if top_down else rows[::-1]


def pad(row):
    return row + b"\x00" * (-len(row) % 4)


def random_palette(count):
    return [(rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)) for _ in range(count)]


def rle_encode(rows, four, skips=False):
    """Rows given top to bottom, values 1..15 (or 1..255). Mixes encoded runs and absolute runs."""
    out = bytearray()
    for y, row in enumerate(rows[::-1]):
        if skips and y == 2:
            out += bytes((4, row[0] << 4 | row[1] if four else row[0]))
            out += b"\x00\x00"  # end of line: the rest of the row is skipped
            continue
        if skips and y == 4:
            out += bytes((3, row[0] << 4 | row[1] if four else row[0]))
            out += b"\x00\x02\x05\x01"  # delta: 5 right, 1 up
            out += b"\x00\x00"
            continue
        if skips and y == 5:
            continue  # consumed by the delta above
        x = 0
        while x < len(row):
            run = 1
            while x + run < len(row) and run < 255 and row[x + run] == row[x]:
                run += 1
            if run >= 3:
                out += bytes((run, row[x] << 4 | row[x] if four else row[x]))
                x += run
            else:
                n = min(len(row) - x, 5)
                if n < 3:  # absolute runs need three pixels: single encoded runs instead
                    for value in row[x:x + n]:
                        out += bytes((1, value << 4 if four else value))
                    x += n
                    continue
                values = row[x:x + n]
                data = pack_bits(values, 4) if four else bytes(values)
                out += bytes((0, n)) + data + (b"\x00" if len(data) % 2 else b"")
                x += n
        out += b"\x00\x00"
    out += b"\x00\x01"
    return bytes(out)


def runs_row(top):
    row = []
    while len(row) < W:
        value = rng.randint(1, top)
        row += [value] * rng.choice([1, 1, 2, 4, 6])
    return row[:W]


def make():
    names = []

    def pillow(name, im):
        im.save(os.path.join(HERE, name))
        names.append(name)

    rgb = Image.new("RGB", (W, H))
    rgb.putdata([(rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)) for _ in range(W * H)])
    rgba = Image.new("RGBA", (W, H))
    rgba.putdata([(rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255), rng.choice([0, 255, rng.randint(1, 254)])) for _ in range(W * H)])
    pillow("pillow_1bit.bmp", rgb.convert("1"))
    pillow("pillow_8bit_gray.bmp", rgb.convert("L"))
    pillow("pillow_8bit_palette.bmp", rgb.convert("P", palette=Image.Palette.ADAPTIVE, colors=200))
    pillow("pillow_24bit.bmp", rgb)
    pillow("pillow_32bit_alpha.bmp", rgba)

    def own(name, *args, **kwargs):
        bmp(name, *args, **kwargs)
        names.append(name)

    pal2 = random_palette(2)
    own("1bit_colour.bmp", 40, W, H, 1, 0, b"".join(pad(pack_bits([rng.randint(0, 1) for _ in range(W)], 1)) for _ in range(H)), pal2)
    pal12 = random_palette(12)
    own("4bit_12colours.bmp", 40, W, H, 4, 0, b"".join(pad(pack_bits([rng.randint(0, 11) for _ in range(W)], 4)) for _ in range(H)), pal12, colors_used=12)
    pal256 = random_palette(256)
    own("8bit_topdown.bmp", 40, W, -H, 8, 0, b"".join(pad(bytes(rng.randint(0, 255) for _ in range(W))) for _ in range(H)), pal256)
    own("16bit_555.bmp", 40, W, H, 16, 0, b"".join(pad(b"".join(struct.pack("<H", rng.randint(0, 0x7FFF)) for _ in range(W))) for _ in range(H)))
    own("16bit_565.bmp", 40, W, H, 16, 3, b"".join(pad(b"".join(struct.pack("<H", rng.randint(0, 0xFFFF)) for _ in range(W))) for _ in range(H)),
        masks=(0xF800, 0x07E0, 0x001F))
    own("24bit_topdown.bmp", 40, W, -H, 24, 0, b"".join(pad(bytes(rng.randint(0, 255) for _ in range(W * 3))) for _ in range(H)))
    bgra = b"".join(bytes((rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255), rng.choice([0, 255, rng.randint(1, 254)]))) for _ in range(W * H))
    own("32bit_v4_alpha.bmp", 108, W, H, 32, 3, bgra, masks=(0xFF0000, 0xFF00, 0xFF, 0xFF000000))
    own("32bit_v5_alpha_topdown.bmp", 124, W, -H, 32, 3, bgra, masks=(0xFF0000, 0xFF00, 0xFF, 0xFF000000))
    own("32bit_zero_alpha.bmp", 40, W, H, 32, 0, b"".join(bytes((rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255), 0)) for _ in range(W * H)))
    own("os2_24bit.bmp", 12, W, H, 24, 0, b"".join(pad(bytes(rng.randint(0, 255) for _ in range(W * 3))) for _ in range(H)))
    own("os2_8bit.bmp", 12, W, H, 8, 0, b"".join(pad(bytes(rng.randint(0, 255) for _ in range(W))) for _ in range(H)), pal256)
    rows8 = [runs_row(255) for _ in range(H)]
    own("rle8.bmp", 40, W, H, 8, 1, rle_encode(rows8, False), pal256)
    rows4 = [runs_row(15) for _ in range(H)]
    pal16 = random_palette(16)
    own("rle4.bmp", 40, W, H, 4, 2, rle_encode(rows4, True), pal16)
    own("rle8_skips.bmp", 40, W, H, 8, 1, rle_encode(rows8, False, skips=True), pal256)
    own("rle4_skips.bmp", 40, W, H, 4, 2, rle_encode(rows4, True, skips=True), pal16)
    return names


def describe(name):
    with open(os.path.join(HERE, name), "rb") as f:
        data = f.read()
    header_size = struct.unpack("<I", data[14:18])[0]
    compression = 0 if header_size == 12 else struct.unpack("<I", data[30:34])[0]
    im = Image.open(io.BytesIO(data))
    im.load()
    rgba = bytearray(im.convert("RGBA").tobytes())
    if compression in (1, 2) and im.mode == "P":
        for i, index in enumerate(im.tobytes()):
            if index == 0:
                rgba[i * 4:i * 4 + 4] = b"\x00\x00\x00\x00"
    w, h = im.size
    points = [(0, 0), (w - 1, 0), (w // 2, h // 2), (0, h - 1), (w - 1, h - 1), (w // 3, h // 5)]
    return {"width": w, "height": h, "loop": 1, "orientation": 1, "frames": [{
        "fnv1a64": fnv1a64(rgba), "durationMilliseconds": 0,
        "samples": [[x, y] + list(rgba[(y * w + x) * 4:(y * w + x) * 4 + 4]) for x, y in points]}]}


def main():
    refs = {name: describe(name) for name in make()}
    with open(os.path.join(HERE, "references.json"), "w") as f:
        f.write(compact_json(refs))


if __name__ == "__main__":
    main()
