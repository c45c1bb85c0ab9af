#!/usr/bin/env python3
"""Makes the hand-made GIF fixtures and the reference decodes GIFCoderTests compares against.

Run from anywhere:  python3 make_gif_fixtures.py [corpus-dir]
(corpus-dir defaults to $WEBIMAGE_CORPUS, else the repository's Corpus/sdwebimage).

The fixtures are assembled block by block here, so every disposal method, local colour
tables, interlacing and frames past the canvas edge appear exactly as intended; Pillow
only compresses each frame's pixel indices (LZW) for us.

references.json holds, per file: canvas size, frame count, loop count (NETSCAPE2.0 value,
1 when absent), frame durations in seconds (delays under 0.011 s -> 0.1 s, one-frame files
0), hasAlpha, and a CRC-32 of each composited frame's RGBA bytes, with fully transparent
pixels written as 0,0,0,0.

The composited frames come from the small browser-rules compositor below (canvas starts
transparent; disposal 2 clears the frame's area to transparent; 3 and 4 restore what was
under the frame; frames are clipped to the canvas), fed with pixel indices Pillow decodes
from each frame on its own. Pillow's own compositing differs from browsers in known ways
(it fills disposal 2 and the area outside a small first frame with the background colour
when no transparency index is in play, keeps a frame's disposal method for following
frames that leave it unspecified, and grows the canvas for frames past its edge);
"pillowAgrees" records, per frame, whether Pillow's own result is the same, so the tests
can show where the two differ.
"""
import io
import os
import sys
import zlib

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # fixture_tools.py, shared with the other scripts
sys.dont_write_bytecode = True  # no __pycache__ inside the bundled Fixtures folder
from fixture_tools import compact_json  # noqa: E402


# ---------------------------------------------------------------- writing GIFs

def lzw_for(indices):
    """Pillow's LZW encoding of a 2-D array of indices: (minimum code size, sub-blocks + 0)."""
    h, w = indices.shape
    im = Image.fromarray(indices.astype(np.uint8), "P")
    im.putpalette([v for i in range(256) for v in (i, i, i)])
    out = io.BytesIO()
    im.save(out, "GIF", optimize=False, interlace=0)
    frames = parse_gif(out.getvalue())["frames"]
    assert len(frames) == 1
    return frames[0]["lzw"]


def lzw_interlaced_for(indices):
    h, w = indices.shape
    assert min(h, w) >= 16, "Pillow only interlaces frames at least 16 pixels each way"
    im = Image.fromarray(indices.astype(np.uint8), "P")
    im.putpalette([v for i in range(256) for v in (i, i, i)])
    out = io.BytesIO()
    im.save(out, "GIF", optimize=False, interlace=1)
    frame = parse_gif(out.getvalue())["frames"][0]
    assert frame["interlace"]
    return frame["lzw"]


def colour_table(colours):
    bits = 1
    while (1 << bits) < len(colours):
        bits += 1
    padded = list(colours) + [(0, 0, 0)] * ((1 << bits) - len(colours))
    return bits, b"".join(bytes(c) for c in padded)


def u16(v):
    return bytes([v & 0xFF, v >> 8])


def build_gif(width, height, global_colours, frames, loop=None):
    out = bytearray(b"GIF89a" + u16(width) + u16(height))
    if global_colours:
        bits, table = colour_table(global_colours)
        out += bytes([0x80 | 0x70 | (bits - 1), 0, 0]) + table
    else:
        out += bytes([0x70, 0, 0])
    if loop is not None:
        out += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01" + u16(loop) + b"\x00"
    for f in frames:
        gce = f.get("gce")
        if gce is not None:
            transparent = gce.get("transparent")
            flags = (gce.get("disposal", 0) << 2) | (1 if transparent is not None else 0)
            out += b"\x21\xF9\x04" + bytes([flags]) + u16(gce.get("delay", 0)) + bytes([transparent or 0, 0])
        ind = f["indices"]
        h, w = ind.shape
        declared_w, declared_h = f.get("declared", (w, h))
        flags = 0x40 if f.get("interlace") else 0
        local = f.get("local")
        table = b""
        if local:
            bits, table = colour_table(local)
            flags |= 0x80 | (bits - 1)
        out += b"\x2C" + u16(f["left"]) + u16(f["top"]) + u16(declared_w) + u16(declared_h) + bytes([flags]) + table
        lzw = lzw_interlaced_for(ind) if f.get("interlace") else lzw_for(ind)
        check = {"w": w, "h": h, "interlace": bool(f.get("interlace")), "lzw": lzw}
        assert (frame_indices(check) == ind).all(), "Pillow did not keep the indices"
        out += lzw
    out += b"\x3B"
    return bytes(out)


# ---------------------------------------------------------------- reading GIFs

def parse_gif(data):
    """The block structure of a GIF: screen, global table, frames (with their graphic control
    extension, rectangle, table and raw LZW bytes) and the NETSCAPE2.0 loop count."""
    assert data[:4] == b"GIF8"
    width, height, packed = data[6] | data[7] << 8, data[8] | data[9] << 8, data[10]
    pos = 13
    gct = None
    if packed & 0x80:
        n = 1 << ((packed & 7) + 1)
        gct = [tuple(data[pos + 3 * i:pos + 3 * i + 3]) for i in range(n)]
        pos += 3 * n
    frames, gce, loop = [], None, None

    def sub_blocks(p):
        blocks = []
        while data[p]:
            blocks.append(data[p + 1:p + 1 + data[p]])
            p += 1 + data[p]
        return blocks, p + 1

    while pos < len(data):
        b = data[pos]
        if b == 0x3B:
            break
        if b == 0x21:
            label = data[pos + 1]
            blocks, pos = sub_blocks(pos + 2)
            if label == 0xF9 and blocks and len(blocks[0]) >= 4:
                g = blocks[0]
                gce = {"disposal": (g[0] >> 2) & 7, "delay": g[1] | g[2] << 8,
                       "transparent": g[3] if g[0] & 1 else None}
            elif label == 0xFF and len(blocks) >= 2 and blocks[0] in (b"NETSCAPE2.0", b"ANIMEXTS1.0") \
                    and len(blocks[1]) >= 3 and blocks[1][0] == 1:
                loop = blocks[1][1] | blocks[1][2] << 8
        elif b == 0x2C:
            d = data[pos + 1:pos + 10]
            left, top, w, h, flags = d[0] | d[1] << 8, d[2] | d[3] << 8, d[4] | d[5] << 8, d[6] | d[7] << 8, d[8]
            pos += 10
            lct = None
            if flags & 0x80:
                n = 1 << ((flags & 7) + 1)
                lct = [tuple(data[pos + 3 * i:pos + 3 * i + 3]) for i in range(n)]
                pos += 3 * n
            start = pos
            _, pos = sub_blocks(pos + 1)
            frames.append({"left": left, "top": top, "w": w, "h": h, "interlace": bool(flags & 0x40),
                           "lct": lct, "gce": gce, "lzw": data[start:pos]})
            gce = None
        else:
            raise ValueError(f"unexpected byte {b:#x} at {pos}")
    return {"width": width, "height": height, "gct": gct, "frames": frames, "loop": loop}


def frame_indices(frame):
    """The frame's pixel indices in display order, decoded by Pillow from the frame alone."""
    single = bytearray(b"GIF89a" + u16(frame["w"]) + u16(frame["h"]) + bytes([0, 0, 0]))
    single += b"\x2C" + u16(0) + u16(0) + u16(frame["w"]) + u16(frame["h"])
    single += bytes([0x40 if frame["interlace"] else 0]) + frame["lzw"] + b"\x3B"
    im = Image.open(io.BytesIO(bytes(single)))
    return np.array(im, dtype=np.uint8).reshape(frame["h"], frame["w"])


# ---------------------------------------------------------------- browser-rules compositing

def composite(gif):
    W, H = gif["width"], gif["height"]
    canvas = np.zeros((H, W, 4), dtype=np.uint8)
    out = []
    for f in gif["frames"]:
        palette = f["lct"] or gif["gct"]
        gce = f["gce"] or {"disposal": 0, "delay": 0, "transparent": None}
        x0, y0 = min(f["left"], W), min(f["top"], H)
        x1, y1 = min(f["left"] + f["w"], W), min(f["top"] + f["h"], H)
        saved = canvas[y0:y1, x0:x1].copy()
        ind = frame_indices(f)[: y1 - y0, : x1 - x0].astype(int)
        lut = np.zeros((256, 4), dtype=np.uint8)
        lut[: len(palette), :3] = np.array(palette, dtype=np.uint8)
        lut[: len(palette), 3] = 255
        draw = ind < len(palette)
        if gce["transparent"] is not None:
            draw &= ind != gce["transparent"]
        region = canvas[y0:y1, x0:x1]
        region[draw] = lut[ind[draw]]
        out.append(canvas.copy())
        if gce["disposal"] == 2:
            canvas[y0:y1, x0:x1] = 0
        elif gce["disposal"] in (3, 4):
            canvas[y0:y1, x0:x1] = saved
    return out


def crc(rgba):
    rgba = rgba.copy()
    rgba[rgba[..., 3] == 0] = 0
    return zlib.crc32(rgba.tobytes())


def pillow_crcs(path):
    im = Image.open(path)
    result = []
    for i in range(getattr(im, "n_frames", 1)):
        im.seek(i)
        result.append((im.size, crc(np.array(im.convert("RGBA")))))
    return result


def reference(path):
    with open(path, "rb") as fh:
        gif = parse_gif(fh.read())
    frames = composite(gif)
    n = len(frames)
    durations = []
    for f in gif["frames"]:
        seconds = (f["gce"]["delay"] if f["gce"] else 0) / 100
        durations.append(0.1 if seconds < 0.011 else seconds)
    if n == 1:
        durations = [0]
    first = gif["frames"][0]
    uncovered = first["left"] > 0 or first["top"] > 0 or first["left"] + first["w"] < gif["width"] \
        or first["top"] + first["h"] < gif["height"]
    # A transparent colour, a small first frame, or any composited frame with a clear pixel
    # (what a disposal cleared or restored to clear and no later frame covered).
    has_alpha = uncovered or any(f["gce"] and f["gce"]["transparent"] is not None for f in gif["frames"]) \
        or any((f[..., 3] < 255).any() for f in frames)
    ours = [crc(f) for f in frames]
    pillow = pillow_crcs(path)
    agrees = [size == (gif["width"], gif["height"]) and value == mine for (size, value), mine in zip(pillow, ours)]
    return {"width": gif["width"], "height": gif["height"], "frameCount": n,
            "loopCount": gif["loop"] if gif["loop"] is not None else 1,
            "durations": [round(d, 4) for d in durations], "hasAlpha": has_alpha,
            "crc32": ours, "pillowAgrees": agrees}


# ---------------------------------------------------------------- the hand-made files

def pattern(h, w, colours, seed):
    y, x = np.mgrid[0:h, 0:w]
    return ((x * 3 + y * 5 + seed) % colours).astype(np.uint8)


def fill(h, w, index):
    return np.full((h, w), index, dtype=np.uint8)


def checker(h, w, a, b):
    y, x = np.mgrid[0:h, 0:w]
    return np.where((x + y) % 2 == 0, a, b).astype(np.uint8)


BASIC = [(220, 40, 40), (40, 200, 60), (30, 60, 230), (250, 250, 250), (120, 120, 0), (0, 130, 140),
         (90, 0, 110), (10, 10, 10)]


def fixtures():
    files = {}
    files["disposal_keep.gif"] = build_gif(24, 20, BASIC, [
        {"left": 0, "top": 0, "indices": pattern(20, 24, 4, 0), "gce": {"disposal": 1, "delay": 10}},
        {"left": 4, "top": 4, "indices": checker(8, 10, 1, 7), "gce": {"disposal": 0, "delay": 20, "transparent": 7}},
        {"left": 12, "top": 8, "indices": fill(8, 8, 2), "gce": {"disposal": 1, "delay": 0}},
    ], loop=0)
    files["disposal_background.gif"] = build_gif(24, 20, BASIC, [
        {"left": 0, "top": 0, "indices": pattern(20, 24, 4, 1), "gce": {"disposal": 1, "delay": 10}},
        {"left": 4, "top": 4, "indices": fill(8, 10, 1), "gce": {"disposal": 2, "delay": 10}},
        {"left": 16, "top": 2, "indices": fill(6, 6, 2), "gce": {"disposal": 0, "delay": 10}},
        {"left": 0, "top": 0, "indices": fill(2, 2, 3), "gce": {"disposal": 1, "delay": 10}},
    ], loop=0)
    files["disposal_previous.gif"] = build_gif(24, 20, BASIC, [
        {"left": 0, "top": 0, "indices": pattern(20, 24, 4, 2), "gce": {"disposal": 1, "delay": 10}},
        {"left": 2, "top": 2, "indices": fill(10, 12, 1), "gce": {"disposal": 3, "delay": 10}},
        {"left": 8, "top": 6, "indices": checker(10, 10, 2, 7), "gce": {"disposal": 3, "delay": 10, "transparent": 7}},
        {"left": 0, "top": 0, "indices": fill(4, 4, 3), "gce": {"disposal": 0, "delay": 10}},
    ], loop=0)
    files["disposal_previous_first.gif"] = build_gif(16, 16, BASIC, [
        {"left": 0, "top": 0, "indices": pattern(8, 16, 4, 3), "gce": {"disposal": 3, "delay": 10}},
        {"left": 0, "top": 8, "indices": pattern(8, 16, 4, 1), "gce": {"disposal": 1, "delay": 10}},
    ], loop=0)
    sixteen = [(i * 16, 255 - i * 16, (i * 40) % 256) for i in range(16)]
    full = [(i, (i * 7) % 256, 255 - i) for i in range(256)]
    files["local_palettes.gif"] = build_gif(20, 18, [(0, 0, 0), (255, 255, 255)], [
        {"left": 0, "top": 0, "indices": checker(18, 20, 0, 1)},
        {"left": 2, "top": 3, "indices": pattern(10, 12, 16, 0), "local": sixteen},
        {"left": 0, "top": 0, "indices": (np.arange(18 * 20) % 256).astype(np.uint8).reshape(18, 20), "local": full},
        {"left": 5, "top": 5, "indices": checker(6, 6, 1, 0)},
    ], loop=2)
    rows32 = [((i * 8) % 256, (i * 37) % 256, (255 - i * 5) % 256) for i in range(32)]
    y, x = np.mgrid[0:19, 0:24]
    y2, x2 = np.mgrid[0:17, 0:20]
    files["interlaced.gif"] = build_gif(24, 19, rows32, [
        {"left": 0, "top": 0, "indices": ((y * 3 + x // 5) % 32).astype(np.uint8), "interlace": True,
         "gce": {"disposal": 1, "delay": 5}},
        {"left": 2, "top": 1, "indices": np.where((x2 + y2) % 3 == 0, 31, (y2 + 7) % 31).astype(np.uint8),
         "interlace": True, "gce": {"disposal": 0, "delay": 5, "transparent": 31}},
    ], loop=0)
    files["past_edge.gif"] = build_gif(20, 16, BASIC, [
        {"left": 0, "top": 0, "indices": pattern(16, 20, 4, 0), "gce": {"disposal": 1, "delay": 10}},
        {"left": 12, "top": 10, "indices": pattern(12, 16, 8, 5), "gce": {"disposal": 2, "delay": 10}},
        {"left": 30, "top": 30, "indices": fill(4, 4, 1), "gce": {"disposal": 0, "delay": 10}},
        {"left": 0, "top": 0, "indices": fill(4, 4, 5), "gce": {"disposal": 0, "delay": 10}},
    ], loop=0)
    files["small_first_frame.gif"] = build_gif(20, 16, BASIC, [
        {"left": 4, "top": 4, "indices": pattern(6, 8, 8, 0), "gce": {"disposal": 0, "delay": 10}},
    ])
    files["delays_loop3.gif"] = build_gif(8, 8, BASIC, [
        {"left": 0, "top": 0, "indices": fill(8, 8, 0), "gce": {"disposal": 1, "delay": 1}},
        {"left": 0, "top": 0, "indices": fill(8, 8, 1), "gce": {"disposal": 1, "delay": 2}},
        {"left": 0, "top": 0, "indices": fill(8, 8, 2), "gce": {"disposal": 1, "delay": 0}},
        {"left": 0, "top": 0, "indices": fill(8, 8, 3), "gce": {"disposal": 1, "delay": 150}},
    ], loop=3)
    # The first frame declares 8x8 but its LZW data ends (end code) after four rows.
    files["short_lzw_data.gif"] = build_gif(8, 8, BASIC, [
        {"left": 0, "top": 0, "indices": pattern(4, 8, 4, 0), "declared": (8, 8), "gce": {"disposal": 1, "delay": 10}},
        {"left": 2, "top": 2, "indices": fill(2, 2, 5), "gce": {"disposal": 1, "delay": 10}},
    ], loop=0)
    files["no_colour_table.gif"] = build_gif(8, 8, None, [
        {"left": 0, "top": 0, "indices": fill(8, 8, 1)},
    ])
    return files


def main():
    corpus = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("WEBIMAGE_CORPUS", os.path.join(HERE, "../../../../Corpus/sdwebimage"))
    refs = {}
    for name, data in fixtures().items():
        with open(os.path.join(HERE, name), "wb") as fh:
            fh.write(data)
        # Pillow refuses short LZW data as truncated; the tests state the browsers'
        # result (the rows that arrived are shown, the rest stay transparent) directly.
        if name not in ("no_colour_table.gif", "short_lzw_data.gif"):
            refs[name] = reference(os.path.join(HERE, name))
    for name in ["TestImage.gif", "TestLoopCount.gif", "1@2x.gif"]:
        refs[name] = reference(os.path.join(corpus, name))
    with open(os.path.join(HERE, "references.json"), "w") as fh:
        fh.write(compact_json(refs))
    for name, ref in refs.items():
        print(f"{name}: {ref['width']}x{ref['height']} frames={ref['frameCount']} loop={ref['loopCount']} "
              f"pillowAgrees={ref['pillowAgrees']}")


if __name__ == "__main__":
    main()
