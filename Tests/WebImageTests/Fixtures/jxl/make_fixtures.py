#!/usr/bin/env python3
"""JPEG XL fixtures for JXLCoderTests, made with libjxl's own tools (cjxl, djxl from Debian's
libjxl-tools: scripts/install-deps.sh libjxl-tools) and Pillow.

- lossless-alpha.jxl: SDWebImage's TestImage.png (300x300 RGBA), lossless: decodes to
  exactly the PNG's pixels.
- animated.jxl: SDWebImage's TestImage.gif (5 frames of 120 ms, looping), lossless: frame N
  is the GIF's composited frame N.
- grey-linear.jxl: a 64x16 grey gradient (column x holds 4x + 3) from a PNG tagged
  linear (gAMA 1.0), lossless: libjxl keeps the linear grey encoding, which the decoder
  must convert to sRGB itself.
- references.json: TestHDR.jxl (PQ, 2182 nits) as djxl renders it tone-mapped to a
  203-nit display in sRGB, the decode JXLCoder asks libjxl for, as grid samples.
Run from anywhere; writes next to this script.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
from fixture_tools import grid_samples  # noqa: E402
from PIL import Image  # noqa: E402

corpus = os.path.join(here, "..", "..", "..", "..", "Corpus", "sdwebimage")
os.chdir(here)
subprocess.run(["cjxl", os.path.join(corpus, "TestImage.png"), "lossless-alpha.jxl", "-d", "0", "-e", "3"], check=True)
subprocess.run(["cjxl", os.path.join(corpus, "TestImage.gif"), "animated.jxl", "-d", "0", "-e", "3"], check=True)
with tempfile.TemporaryDirectory() as scratch:
    # Written by hand: Pillow cannot write a gAMA chunk.
    width, height = 64, 16
    rows = b"".join(b"\x00" + bytes(x * 4 + 3 for x in range(width)) for _ in range(height))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    linear = os.path.join(scratch, "grey-linear.png")
    with open(linear, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
                + chunk(b"gAMA", struct.pack(">I", 100000)) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
    subprocess.run(["cjxl", linear, "grey-linear.jxl", "-d", "0", "-e", "3"], check=True)
    out = os.path.join(scratch, "hdr.png")
    subprocess.run(["djxl", os.path.join(corpus, "TestHDR.jxl"), out, "--display_nits=203",
                    "--color_space=RGB_D65_SRG_Per_SRG"], check=True)
    refs = {"TestHDR.jxl": grid_samples(Image.open(out))}
with open("references.json", "w") as f:
    json.dump(refs, f, separators=(",", ":"))
    f.write("\n")
