#!/usr/bin/env python3
"""Writes the TIFF fixtures and their reference pixels for the TIFFCoder tests.

Encoder and reference decoder: Pillow (its own libtiff build and its own TIFF unpacking).
Run from this folder: python3 make_fixtures.py

For every NAME.tif, NAME.rgba holds Pillow's decode as upright 8-bit straight RGBA (the
Orientation tag applied with ImageOps.exif_transpose), and manifest.json records the size,
the Orientation tag and whether the file declares alpha.
"""
import json
import os

from PIL import Image, ImageOps

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 23, 17  # odd sizes catch row-stride mistakes


def pattern(x, y):
    return ((x * 11 + y * 3) % 256, (y * 15) % 256, (x * y * 7 + 40) % 256)


def rgb():
    im = Image.new("RGB", (W, H))
    im.putdata([pattern(x, y) for y in range(H) for x in range(W)])
    return im


def rgba():
    im = Image.new("RGBA", (W, H))
    # Alpha runs through low values, where premultiplying would lose colour.
    im.putdata([pattern(x, y) + ((x * 12 + y) % 256,) for y in range(H) for x in range(W)])
    return im


def mark_associated(path):
    """Pillow cannot write associated alpha, so its ExtraSamples value 2 is patched to 1."""
    import struct
    data = bytearray(open(path, "rb").read())
    assert data[:4] == b"II*\0"
    ifd = struct.unpack_from("<I", data, 4)[0]
    for i in range(struct.unpack_from("<H", data, ifd)[0]):
        entry = ifd + 2 + 12 * i
        tag, kind, count = struct.unpack_from("<HHI", data, entry)
        if tag == 338:
            assert kind == 3 and count == 1 and struct.unpack_from("<H", data, entry + 8)[0] == 2
            struct.pack_into("<H", data, entry + 8, 1)
    open(path, "wb").write(bytes(data))


def main():
    manifest = {}

    def save(name, image, before_reference=None, **params):
        path = os.path.join(HERE, name + ".tif")
        image.save(path, "TIFF", **params)
        if before_reference:
            before_reference(path)
        with Image.open(path) as decoded:
            orientation = decoded.getexif().get(0x0112, 1)
            has_alpha = decoded.mode in ("RGBA", "RGBa", "LA", "La", "PA")
            if decoded.mode == "I;16":
                # Pillow's own I;16 -> L conversion clips at 255; the decoder rounds 16-bit
                # samples to 8 bits as PNG's are (issue 14: rounding, not truncation).
                decoded = Image.frombytes("L", decoded.size, bytes((v + 128) // 257 for v in decoded.getdata()))
            upright = ImageOps.exif_transpose(decoded).convert("RGBA")
        with open(os.path.join(HERE, name + ".rgba"), "wb") as f:
            f.write(upright.tobytes())
        manifest[name] = {"width": upright.width, "height": upright.height,
                          "orientation": orientation, "hasAlpha": has_alpha}

    save("rgb8", rgb())
    save("rgba8-unassociated", rgba())
    premultiplied = Image.frombytes("RGBA", (W, H), rgba().convert("RGBa").tobytes())
    save("rgba8-associated", premultiplied, before_reference=mark_associated)
    save("gray8", rgb().convert("L"))
    save("gray-alpha8", rgba().convert("LA"))
    save("palette", rgb().quantize(16))
    save("bilevel", rgb().convert("L").point(lambda v: 255 if v > 100 else 0).convert("1"))
    gray16 = Image.new("I;16", (W, H))
    gray16.putdata([(x * 2851 + y * 977) % 65536 for y in range(H) for x in range(W)])
    save("gray16", gray16)
    save("rgb8-lzw", rgb(), compression="tiff_lzw")
    save("rgba8-deflate", rgba(), compression="tiff_adobe_deflate")
    save("rgb8-packbits", rgb(), compression="packbits")
    for orientation in range(1, 9):
        exif = Image.Exif()
        exif[0x0112] = orientation
        save(f"orientation-{orientation}", rgb(), exif=exif)
    first, second = rgb(), Image.new("RGB", (5, 4), (9, 9, 9))
    save("multipage", first, save_all=True, append_images=[second])

    with open(os.path.join(HERE, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
