#!/usr/bin/env python3
"""JPEG XL fixtures for JXLCoderTests, made with libjxl's own tools (cjxl, djxl from Debian's
libjxl-tools: scripts/install-deps.sh libjxl-tools) and Pillow.

- lossless-alpha.jxl: SDWebImage's TestImage.png (300x300 RGBA), lossless: decodes to
  exactly the PNG's pixels.
- animated.jxl: SDWebImage's TestImage.gif (5 frames of 120 ms, looping), lossless: frame N
  is the GIF's composited frame N.
- references.json: TestHDR.jxl (PQ, 2182 nits) as djxl renders it tone-mapped to a
  203-nit display in sRGB, the decode JXLCoder asks libjxl for, as grid samples.
Run from anywhere; writes next to this script.
"""
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
from fixture_tools import grid_samples  # noqa: E402
from PIL import Image  # noqa: E402

corpus = os.path.join(here, "..", "..", "..", "..", "Corpus", "sdwebimage")
os.chdir(here)
subprocess.run(["cjxl", os.path.join(corpus, "TestImage.png"), "lossless-alpha.jxl", "-d", "0", "-e", "3"], check=True)
subprocess.run(["cjxl", os.path.join(corpus, "TestImage.gif"), "animated.jxl", "-d", "0", "-e", "3"], check=True)
with tempfile.TemporaryDirectory() as scratch:
    out = os.path.join(scratch, "hdr.png")
    subprocess.run(["djxl", os.path.join(corpus, "TestHDR.jxl"), out, "--display_nits=203",
                    "--color_space=RGB_D65_SRG_Per_SRG"], check=True)
    refs = {"TestHDR.jxl": grid_samples(Image.open(out))}
with open("references.json", "w") as f:
    json.dump(refs, f, separators=(",", ":"))
    f.write("\n")
