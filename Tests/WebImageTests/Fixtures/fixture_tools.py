"""Small pieces several fixture scripts share (imported from the scripts in the subfolders,
which put this folder on sys.path, so each still runs from its own folder).

- compact_json: references.json with one line per file, so a regenerated reference shows
  up as a readable diff.
- fnv1a64: the FNV-1a 64 hash of decoded RGBA bytes the PNG and BMP references hold.
- grid_samples: the RGBA of a grid of sample points, the layout Helpers/SampledReference.swift
  reads (AVIF and HEIF references).
"""
import json


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
