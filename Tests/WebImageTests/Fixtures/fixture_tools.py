"""Small pieces several fixture scripts share (imported from the scripts in the subfolders,
which put this folder on sys.path, so each still runs from its own folder).

- compact_json: references.json with one line per file, so a regenerated reference shows
  up as a readable diff.
- fnv1a64: the FNV-1a 64 hash of decoded RGBA bytes the PNG and BMP references hold.
- pack_bits: values of 1, 2 or 4 bits packed MSB first (PNG rows, BMP rows).
- grid_samples: the RGBA of a grid of sample points, the layout Helpers/SampledReference.swift
  reads (AVIF and HEIF references).
- quadrants: the AVIF and HEIF orientation fixtures' source image.
"""
import json

from PIL import Image


def compact_json(refs):
    """`refs` as a JSON object with one sorted, compact line per key."""
    lines = [f"{json.dumps(k)}: {json.dumps(refs[k], sort_keys=True, separators=(',', ':'))}" for k in sorted(refs)]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def fnv1a64(data):
    """FNV-1a 64 of `data`, as 16 lower-case hex digits."""
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def pack_bits(values, bits):
    """`values` of `bits` bits each (1, 2 or 4), MSB first; the last byte padded with zeros."""
    out, acc, n = bytearray(), 0, 0
    for v in values:
        acc = (acc << bits) | v
        n += bits
        if n == 8:
            out.append(acc)
            acc, n = 0, 0
    if n:
        out.append(acc << (8 - n))
    return bytes(out)


def grid_samples(image, columns=24, rows=16):
    """Size and the RGBA of `columns` x `rows` points centred in equal cells, row-major."""
    rgba = image.convert("RGBA")
    w, h = rgba.size
    xs = [(2 * i + 1) * w // (2 * columns) for i in range(columns)]
    ys = [(2 * j + 1) * h // (2 * rows) for j in range(rows)]
    values = []
    for y in ys:
        for x in xs:
            values.extend(rgba.getpixel((x, y)))
    return {"width": w, "height": h, "xs": xs, "ys": ys, "rgba": values}


def quadrants():
    """64x48, four flat colours and a marker stripe: survives lossy coding, shows any turn."""
    im = Image.new("RGB", (64, 48))
    for x in range(64):
        for y in range(48):
            im.putpixel((x, y), (255 if x < 32 else 0, 255 if y < 24 else 0, 200 if x < 12 else 0))
    return im
