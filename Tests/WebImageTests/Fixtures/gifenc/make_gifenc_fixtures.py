"""Fixtures for GIFEncoderPillowTests: what Pillow reads from a GIF our encoder wrote.

1. Writes synthetic.png, a 4-frame APNG (48x32) whose frames punch a transparent hole,
   move a square and end fully transparent (durations 100/250/40/70 ms, 3 loops): the
   cases that need frame cropping, transparent skipping and disposal 2.
2. Encodes it with our command-line tool: `webimage encode synthetic.png -o synthetic.gif --format gif`.
3. Reads synthetic.gif with Pillow and records its frame count, durations and loop count
   (pillow.json) and its composited RGBA frames (pillow.rgba, frames one after another).

Run from this folder: python3 make_gifenc_fixtures.py PATH/TO/webimage
"""
import json
import subprocess
import sys

import numpy as np
from PIL import Image, ImageSequence

W, H = 48, 32


def base():
    a = np.zeros((H, W, 4), np.uint8)
    for y in range(H):
        for x in range(W):
            k = (y * W + x) % 12
            a[y, x] = [(k * 37) % 256, (k * 91 + 17) % 256, (k * 13 + 200) % 256, 255]
    return a


def main():
    tool = sys.argv[1]
    holed = base()
    holed[4:9, 3:11] = 0
    moved = base()
    moved[10:14, 20:26] = [250, 250, 10, 255]
    frames = [Image.fromarray(f) for f in (base(), holed, moved, np.zeros((H, W, 4), np.uint8))]
    frames[0].save("synthetic.png", save_all=True, append_images=frames[1:],
                   duration=[100, 250, 40, 70], loop=3, disposal=0, blend=0)
    subprocess.run([tool, "encode", "synthetic.png", "-o", "synthetic.gif", "--format", "gif"], check=True)
    gif = Image.open("synthetic.gif")
    decoded = [f.convert("RGBA") for f in ImageSequence.Iterator(gif)]
    durations = [f.info.get("duration") for f in ImageSequence.Iterator(Image.open("synthetic.gif"))]
    with open("pillow.rgba", "wb") as out:
        for frame in decoded:
            pixels = np.asarray(frame).copy()
            pixels[pixels[..., 3] == 0] = 0  # Pillow keeps the palette colour under alpha 0
            out.write(pixels.tobytes())
    with open("pillow.json", "w") as out:
        json.dump({"frames": len(decoded), "durations_ms": durations, "loop": gif.info.get("loop"),
                   "width": W, "height": H, "pillow": Image.__version__}, out, indent=1)


if __name__ == "__main__":
    main()
