#!/usr/bin/env python3
"""Writes raw-profile-exif-ztxt.png and raw-profile-exif-text.png: a 12x8 white PNG with a
black top-left pixel, no eXIf chunk, and its EXIF (Orientation 6, Artist) kept the way
ImageMagick kept it before eXIf existed: a zTXt (or tEXt) chunk keyed
"Raw profile type exif" whose text is "\\nexif\\n%8d\\n" and the block ("Exif\\0\\0" + TIFF)
in hex, 72 digits a line (ImageMagick's png.c, Magick_png_write_raw_profile). exiftool
reads Orientation 6 from both, and Pillow's ImageOps.exif_transpose turns them to 8x12.
Run from this folder; needs Pillow.
"""
import struct
import zlib
from io import BytesIO

from PIL import Image


def tiff_block():
    """Big-endian TIFF: IFD0 with Orientation (SHORT 6) and Artist (ASCII)."""
    artist = b"Raw Profile Fixture\0"
    entries = 2
    value_offset = 8 + 2 + entries * 12 + 4
    out = b"MM\0*" + struct.pack(">I", 8) + struct.pack(">H", entries)
    out += struct.pack(">HHIHH", 0x0112, 3, 1, 6, 0)
    out += struct.pack(">HHII", 0x013B, 2, len(artist), value_offset)
    return out + struct.pack(">I", 0) + artist


def chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)


def main():
    picture = Image.new("RGB", (12, 8), (255, 255, 255))
    picture.putpixel((0, 0), (0, 0, 0))
    buffer = BytesIO()
    picture.save(buffer, "PNG")
    source = buffer.getvalue()
    exif = b"Exif\0\0" + tiff_block()
    digits = exif.hex()
    text = ("\nexif\n%8d\n" % len(exif) + "\n".join(digits[i:i + 72] for i in range(0, len(digits), 72)) + "\n").encode()
    for name, kind, payload in [
        ("raw-profile-exif-ztxt.png", b"zTXt", b"Raw profile type exif\0\0" + zlib.compress(text)),
        ("raw-profile-exif-text.png", b"tEXt", b"Raw profile type exif\0" + text),
    ]:
        out, at = source[:8], 8
        while at < len(source):
            length, = struct.unpack(">I", source[at:at + 4])
            kind_here = source[at + 4:at + 8]
            if kind_here == b"IDAT":
                out += chunk(kind, payload)
            out += source[at:at + 12 + length]
            at += 12 + length
        with open(name, "wb") as file:
            file.write(out)
        print("wrote", name)


if __name__ == "__main__":
    main()
