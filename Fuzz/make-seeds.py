#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora from the repository's own fixtures.

Usage: Fuzz/make-seeds.py OUTPUT_DIR

OUTPUT_DIR/<run>/ gets one seed folder per run of Fuzz/run.sh (decode-jpeg, ..., thumbnail,
cookie, ...). Only files inside this repository are read: Tests/WebImageTests/Fixtures and
Corpus/sdwebimage. Files larger than MAX_SEED are left out, so one seed cannot slow every
execution of a run. Targets whose input starts with a parameter header (thumbnail,
scaledown, progressive, animated, metadata) get each image behind a few headers.
Deterministic: the same repository gives the same seeds.
"""
import base64
import os
import struct
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [ROOT / "Tests/WebImageTests/Fixtures", ROOT / "Corpus/sdwebimage"]
MAX_SEED = 200 * 1024
# Smaller images for the targets that decode an input several times.
MAX_MULTI = 64 * 1024

FORMATS = {
    ".jpg": "jpeg", ".jpeg": "jpeg", ".png": "png", ".apng": "png", ".gif": "gif", ".webp": "webp",
    ".avif": "avif", ".heic": "heif", ".heif": "heif", ".heics": "heif", ".tif": "tiff", ".tiff": "tiff",
    ".bmp": "bmp", ".jxl": "jxl", ".svg": "svg", ".pdf": "pdf",
}


# Fixtures that are not seeds: the SVG check's bypass files are documents built to make
# librsvg and gdk-pixbuf allocate gigabytes once past the check, and to exercise libxml2's
# odd corners (one of its entity paths leaks). As seeds, the first mutation that slips
# past the check is a finding in libraries the check exists to keep them from.
NOT_SEEDS = [ROOT / "Tests/WebImageTests/Fixtures/vector/svg-bypass"]


def images():
    """(format, path, bytes) of every image fixture within MAX_SEED, sorted by path."""
    found = []
    for source in SOURCES:
        for path in sorted(source.rglob("*")):
            if any(folder in path.parents for folder in NOT_SEEDS):
                continue
            fmt = FORMATS.get(path.suffix.lower())
            if fmt and path.is_file() and path.stat().st_size <= MAX_SEED:
                found.append((fmt, path, path.read_bytes()))
    return found


def write(out, run, name, data):
    folder = out / run
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def jpeg_segments(data, marker_wanted, signature):
    """Payloads of the JPEG's segments of one marker that start with `signature`."""
    found, at = [], 2
    while at + 4 <= len(data) and data[at] == 0xFF:
        marker = data[at + 1]
        if marker in (0xD9, 0xDA):
            break
        length = struct.unpack(">H", data[at + 2:at + 4])[0]
        payload = data[at + 4:at + 2 + length]
        if marker == marker_wanted and payload.startswith(signature):
            found.append(payload[len(signature):])
        at += 2 + length
    return found


def jpeg_app1(data, signature):
    """Payloads of the JPEG's APP1 segments that start with `signature`."""
    return jpeg_segments(data, 0xE1, signature)


def jpeg_icc(data):
    """The ICC profile of the JPEG's APP2 segments, reassembled in sequence order, or None."""
    chunks = jpeg_segments(data, 0xE2, b"ICC_PROFILE\0")
    ordered = sorted((chunk[0], chunk[2:]) for chunk in chunks if len(chunk) > 2)
    return b"".join(part for _, part in ordered) or None


def png_chunks(data, kind):
    found, at = [], 8
    while at + 8 <= len(data):
        length, name = struct.unpack(">I4s", data[at:at + 8])
        if name == kind:
            found.append(data[at + 8:at + 8 + length])
        at += 12 + length
    return found


def riff_chunks(data, kind):
    found, at = [], 12
    while at + 8 <= len(data):
        name, length = data[at:at + 4], struct.unpack("<I", data[at + 4:at + 8])[0]
        if name == kind:
            found.append(data[at + 8:at + 8 + length])
        at += 8 + length + (length & 1)
    return found


# One line of processing options per seed of the server-process run, in turn.
PROCESSING = [
    "rs:fit:300:200", "rs:fill:120:120:1/g:sm", "rs:fill-down:64:200/bg:ffffff@jpg", "w:50/rt:90/bl:2@png",
    "rs:force:33:77/ex:1/eg:nw@webp", "rs:auto:200:100:1:1/pg:0@gif", "dpr:2/w:40/q:30/sm:1@jpg", "rs:fit:1024:1024:1@gif",
]


def main():
    out = Path(sys.argv[1])
    every = images()
    small = [(fmt, path, data) for fmt, path, data in every if len(data) <= MAX_MULTI]

    for fmt, path, data in every:
        write(out, "decode-" + fmt, path.name, data)

    # Thumbnail boxes (w, h little-endian 16-bit, minus one) and flag bytes; scale-down
    # limits; progressive step patterns; animated frame orders.
    thumbnail = [struct.pack("<HHB", 63, 63, 0), struct.pack("<HHB", 15, 99, 2), struct.pack("<HHB", 199, 9, 1),
                 struct.pack("<HHB", 4095, 4095, 4)]
    scaledown = [struct.pack("<IB", 4096, 0), struct.pack("<IB", 65536, 0), struct.pack("<IB", 1 << 20, 0),
                 struct.pack("<IB", 0xFFFFFFFF, 20)]
    progressive = [bytes([0, 3, 7, 1, 0, 9, 2, 5]), bytes([1, 0, 0, 0, 0, 0, 0, 0]), bytes([2, 255, 40, 80, 20, 10, 5, 1])]
    animated = [bytes([0, 1, 2, 3, 4, 5, 6, 7]), bytes([1, 7, 6, 5, 4, 3, 2, 1]), bytes([0, 2, 1, 2, 0, 255, 3, 1])]
    for index, (fmt, path, data) in enumerate(small):
        for name, headers in (("thumbnail", thumbnail), ("scaledown", scaledown), ("progressive", progressive)):
            header = headers[index % len(headers)]
            write(out, name, path.name, header + data)
        if fmt in ("gif", "png", "webp", "avif"):
            for number, header in enumerate(animated):
                write(out, "animated", f"{number}-{path.name}", header + data)
        # Processing options (imgproxy's grammar), a newline, the source.
        options = PROCESSING[index % len(PROCESSING)]
        write(out, "server-process", path.name, options.encode() + b"\n" + data)

    # Metadata: EXIF blocks and XMP packets cut out of the fixtures, HEIF/AVIF files, and
    # whole files for `info`.
    for fmt, path, data in every:
        blocks = []
        if fmt == "jpeg":
            blocks = jpeg_app1(data, b"Exif\0\0")
            # The colour fixtures' profiles: CMYK (a LUT profile), grey, Adobe RGB, ProPhoto.
            profile = jpeg_icc(data)
            if profile:
                write(out, "metadata", f"icc-{path.name}", b"\x04" + profile)
            for number, xmp in enumerate(jpeg_app1(data, b"http://ns.adobe.com/xap/1.0/\0")):
                write(out, "metadata", f"xmp-{number}-{path.name}", b"\x01" + xmp)
        elif fmt == "png":
            blocks = png_chunks(data, b"eXIf")
        elif fmt == "webp":
            blocks = riff_chunks(data, b"EXIF")
        elif fmt == "tiff" and len(data) <= MAX_MULTI:
            blocks = [data]   # a TIFF file is its own EXIF directory (TIFFEXIFBlock)
        for number, block in enumerate(blocks):
            write(out, "metadata", f"exif-{number}-{path.name}", b"\x00" + block)
        if fmt in ("heif", "avif"):
            write(out, "metadata", f"heif-{path.name}", b"\x02" + data)
        if len(data) <= MAX_MULTI:
            write(out, "metadata", f"info-{path.name}", b"\x03" + data)
        if fmt == "png":
            # The ICC profiles of the colour fixtures (iCCP: name, NUL, method, zlib stream).
            for number, chunk in enumerate(png_chunks(data, b"iCCP")):
                name_end = chunk.find(b"\0")
                try:
                    profile = zlib.decompress(chunk[name_end + 2:])
                except zlib.error:
                    continue
                write(out, "metadata", f"icc-{number}-{path.name}", b"\x04" + profile)
    # The default CMYK profile, which a CMYK source without one converts through.
    write(out, "metadata", "icc-fogra39", b"\x04" + (ROOT / "Sources/CColorProfiles/fogra39.icc").read_bytes())
    write(out, "metadata", "xmp-attribute", b"\x01<x:xmpmeta><rdf:Description tiff:Orientation=\"6\"/></x:xmpmeta>")
    write(out, "metadata", "xmp-element", b"\x01<rdf:Description><tiff:Orientation>3</tiff:Orientation></rdf:Description>")

    texts = {
        "cookie": [
            "https://img.example.com/a/b.png\nsid=abc=def; Domain=.Example.com; Path=/img; Secure; HttpOnly; Max-Age=60; SameSite=Lax",
            "http://example.com/\na=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT",
            "https://www.example.com/x\na=1; expires=Wednesday, 21-Oct-15 07:28:00 GMT; Domain=example.com",
            "http://[::1]:8080/p\nid=1; Path=/; Max-Age=0",
            "https://a.b.example.co.uk/\nn=v; Domain=co.uk",
            "=nameless",
        ],
        "transform": [
            "resize=256x256,aspectFill;round=12;blur=4",
            "resize=20x10,aspectFill;rotate=90;round=3",
            "crop=1,2,5,4;flip=hv",
            "rotate=30,keep;tint=#ff000080,multiply",
            "round=4,corners=tl+br,border=2,color=#00ff00",
            "resize=64x48,fit; blur=1.5",
        ],
        "dataurl": [
            "data:image/png;base64," + base64.b64encode((ROOT / "Corpus/sdwebimage/TestImage.gif").read_bytes()[:256]).decode(),
            "data:image/svg+xml,%3Csvg%20xmlns%3D%22http://www.w3.org/2000/svg%22/%3E",
            "data:;base64,QUJD\r\nREVG",
            "data:,hello%20world",
            "DATA:image/gif;charset=utf-8;BASE64,R0lGODlhAQABAAAAACw=",
        ],
        "server-path": [
            "/insecure/rs:fit:300:200/plain/http%3A%2F%2Fimg.example%2Fb.jpg@webp",
            "/insecure/w:100/h:50/q:80/plain/http://img.example/a.png",
            "/insecure/rs:fill:300:200:1/g:fp:0.3:0.7/bg:ffffff/aHR0cDovL2ltZy5leGFtcGxl/L2EucG5n.avif",
            "/sig/ex:1/el:1/dpr:2/rt:force/plain/https://cdn.example:8443/p/q.jpg?x=1&y=2@png",
            "/_/s:10:10/bl:3/rot:90/f:jpg/plain/http://img.example/a%20b.png",
            "/insecure/enc/abc",
        ],
    }
    for run, seeds in texts.items():
        for number, text in enumerate(seeds):
            write(out, run, f"seed-{number}", text.encode())
    # The cookie parser's own findings, replayed by every run of it.
    for finding in sorted((ROOT / "Tests/WebImageTests/Fixtures/fuzz").glob("cookie-*.txt")):
        write(out, "cookie", finding.name, finding.read_bytes())


if __name__ == "__main__":
    main()
