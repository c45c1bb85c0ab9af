#!/usr/bin/env python3
"""Builds the colour-management fixtures in Tests/WebImageTests/Fixtures/color/.

For each case it writes a source image carrying a colour description, and beside it
`<name>.expected.png`: the source as Pillow decodes it, converted to sRGB by Little CMS
through Pillow's ImageCms (perceptual intent), the reference our decoders are held to
(PSNR >= 40 dB, ColorFixtureTests). The files are committed, so `make test` needs no
Python; run this only to change them: scripts/make-color-fixtures.sh sets up what it needs.

Profiles: sRGB, Adobe RGB (1998) and ProPhoto from colord's data, a grey profile from
icc-profiles-free. Display P3 is in neither, so it is written here from its published
primaries (SMPTE EG 432-1, D65) and sRGB's transfer curve, a matrix/TRC profile like
Apple's. The embedded-CMYK case uses a lookup-table profile written here too: a
printer-like model (dot gain, ink interaction) sampled on a 9^4 grid, the kind of profile
(lut16 A2B0 to Lab) real press profiles are, and unlike the library's default CMYK
profile (Sources/CColorProfiles/fogra39.icc, which the profile-less CMYK cases go through),
so that a decoder using the wrong one fails.
"""
import io
import math
import struct
import sys
from pathlib import Path

import pillow_heif
from PIL import Image, ImageCms, PngImagePlugin

pillow_heif.register_heif_opener()

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "Tests/WebImageTests/Fixtures/color")
COLORD = Path("/usr/share/color/icc/colord")
FREE = Path("/usr/share/color/icc")
W, H = 96, 64


# ---- an ICC matrix/TRC profile from primaries, white point and a curve ------------------

D50 = (0.9642, 1.0, 0.8249)
BRADFORD = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]


def mat_mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def mat_vec(a, v):
    return [sum(a[i][k] * v[k] for k in range(3)) for i in range(3)]


def mat_inv(m):
    (a, b, c), (d, e, f), (g, h, i) = m
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    return [[(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det],
            [(f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det],
            [(d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det]]


def xyz(x, y):
    return [x / y, 1.0, (1 - x - y) / y]


def rgb_to_xyz_d50(primaries, white):
    """The RGB -> XYZ matrix, Bradford-adapted to D50 as ICC profiles store it."""
    p = [xyz(*c) for c in primaries]
    m = [[p[j][i] for j in range(3)] for i in range(3)]
    w = xyz(*white)
    s = mat_vec(mat_inv(m), w)
    m = [[m[i][j] * s[j] for j in range(3)] for i in range(3)]
    src, dst = mat_vec(BRADFORD, w), mat_vec(BRADFORD, list(D50))
    scale = [[dst[0] / src[0], 0, 0], [0, dst[1] / src[1], 0], [0, 0, dst[2] / src[2]]]
    adapt = mat_mul(mat_inv(BRADFORD), mat_mul(scale, BRADFORD))
    return mat_mul(adapt, m)


def s15(v):
    return struct.pack(">i", int(round(v * 65536)))


def xyz_tag(v):
    return b"XYZ " + b"\0" * 4 + b"".join(s15(c) for c in v)


def text_tag(text):
    return b"text" + b"\0" * 4 + text.encode() + b"\0"


def desc_tag(text):
    ascii_ = text.encode() + b"\0"
    return (b"desc" + b"\0" * 4 + struct.pack(">I", len(ascii_)) + ascii_
            + b"\0" * 8 + b"\0" * 3 + b"\0" * 67)


def curve_tag(curve):
    if curve == "srgb":  # parametric type 3: sRGB's piecewise curve
        params = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        return b"para" + b"\0" * 4 + struct.pack(">HH", 3, 0) + b"".join(s15(p) for p in params)
    return b"curv" + b"\0" * 4 + struct.pack(">IH", 1, int(round(curve * 256))) + b"\0\0"


def matrix_profile(name, primaries, white, curve):
    m = rgb_to_xyz_d50(primaries, white)
    columns = [[m[0][j], m[1][j], m[2][j]] for j in range(3)]
    trc = curve_tag(curve)
    tags = [(b"desc", desc_tag(name)), (b"cprt", text_tag("No copyright, use freely")),
            (b"wtpt", xyz_tag(D50)),
            (b"rXYZ", xyz_tag(columns[0])), (b"gXYZ", xyz_tag(columns[1])), (b"bXYZ", xyz_tag(columns[2])),
            (b"rTRC", trc), (b"gTRC", trc), (b"bTRC", trc)]
    return assemble(tags, b"mntr", b"RGB ", b"XYZ ")


def assemble(tags, device_class, space, pcs):
    table, data = b"", b""
    offset = 128 + 4 + 12 * len(tags)
    for sig, body in tags:
        while len(body) % 4:
            body += b"\0"
        table += sig + struct.pack(">II", offset + len(data), len(body))
        data += body
    size = offset + len(data)
    header = (struct.pack(">I", size) + b"lcms" + bytes([2, 0x10, 0, 0]) + device_class + space + pcs
              + b"\0" * 12 + b"acsp" + b"APPL" + b"\0" * 4 + b"\0" * 8 + b"\0" * 8 + struct.pack(">I", 0)
              + b"".join(s15(c) for c in D50) + b"\0" * 4 + b"\0" * 16 + b"\0" * 28)
    assert len(header) == 128, len(header)
    return header + struct.pack(">I", len(tags)) + table + data


def lab_d50(rgb):
    """CIE Lab (D50) of an sRGB colour in 0...1."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    m = rgb_to_xyz_d50([(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)], (0.3127, 0.3290))
    x, y, z = mat_vec(m, lin)

    def f(t):
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29
    fx, fy, fz = f(x / D50[0]), f(y / D50[1]), f(z / D50[2])
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def cmyk_profile():
    """A CMYK -> Lab lut16 profile (A2B0 only, which is all an input conversion reads)."""
    grid = 9
    identity = b"".join(s15(v) for v in (1, 0, 0, 0, 1, 0, 0, 0, 1))
    ramp = b"".join(struct.pack(">H", round(i * 65535 / 255)) for i in range(256))
    clut = b""
    for c in range(grid):
        for m in range(grid):
            for y in range(grid):
                for k in range(grid):
                    ink = [v / (grid - 1) for v in (c, m, y, k)]
                    gained = [v + 0.15 * v * (1 - v) for v in ink]   # dot gain
                    paper = 1 - gained[3] * 0.92
                    rgb = [max(0.0, (1 - gained[i] * 0.95) * paper - 0.03 * gained[(i + 1) % 3]) for i in range(3)]
                    lab = lab_d50(rgb)
                    enc = (lab[0] * 65280 / 100, (lab[1] + 128) * 256, (lab[2] + 128) * 256)
                    clut += b"".join(struct.pack(">H", max(0, min(65535, round(v)))) for v in enc)
    a2b0 = (b"mft2" + b"\0" * 4 + bytes([4, 3, grid, 0]) + identity + struct.pack(">HH", 256, 256)
            + ramp * 4 + clut + ramp * 3)
    tags = [(b"desc", desc_tag("Fixture CMYK (printer model)")), (b"cprt", text_tag("No copyright, use freely")),
            (b"wtpt", xyz_tag(D50)), (b"A2B0", a2b0)]
    return assemble(tags, b"prtr", b"CMYK", b"Lab ")


D65 = (0.3127, 0.3290)
DISPLAY_P3 = matrix_profile("Display P3", [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)], D65, "srgb")


# ---- pictures ---------------------------------------------------------------------------

def picture(mode="RGB"):
    """A gradient with saturated patches: hues across, lightness down, primaries on the right."""
    img = Image.new("RGB", (W, H))
    px = img.load()
    patches = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (0, 255, 255), (255, 0, 255), (255, 255, 0),
               (255, 255, 255), (0, 0, 0)]
    for y in range(H):
        for x in range(W):
            if x >= W - 16:
                px[x, y] = patches[(y * len(patches)) // H]
                continue
            hue = x / (W - 16) * 6
            c = [max(0.0, min(1.0, abs((hue + k) % 6 - 3) - 1)) for k in (0, 4, 2)]
            light = y / (H - 1)
            px[x, y] = tuple(int(round(255 * (v * (1 - light) + light * 0.5 * (1 + math.sin(x / 7))))) for v in c)
    return img if mode == "RGB" else img.convert(mode)


SRGB = ImageCms.createProfile("sRGB")


def expected(source_path, profile_bytes, mode_out="RGB"):
    decoded = Image.open(source_path)
    decoded.load()
    src = ImageCms.ImageCmsProfile(io.BytesIO(profile_bytes))
    out = ImageCms.profileToProfile(decoded, src, SRGB, renderingIntent=ImageCms.Intent.PERCEPTUAL,
                                    outputMode=mode_out)
    # Pillow tags the result with its sRGB profile (with today's date in it): an untagged
    # expectation is sRGB all the same, and stays byte-identical when regenerated.
    out.info.pop("icc_profile", None)
    return out


def write_case(name, image, fmt, profile_bytes, **save):
    path = OUT / name
    image.save(path, fmt, icc_profile=profile_bytes, **save)
    expected(path, profile_bytes).save(OUT / (path.stem + "." + path.suffix[1:] + ".expected.png"))
    print("wrote", path)


# ---- HDR: PQ and HLG, BT.2020, 10 bits ---------------------------------------------------
#
# The expectation is an sRGB picture kept below ~81 nits (0.4 of sRGB white's linear light
# at BT.2408's 203 nits), under the knee of the decoders' tone curve, where BT.2390's EETF
# changes nothing: the HDR file is that picture written as BT.2100 light, so decoding it
# must give the picture back (within the codec's loss). The HDR encodings below are the
# standards' own formulas (ST 2084, ARIB STD-B67, BT.2100's OOTF) and BT.2087's published
# BT.709-to-BT.2020 matrix, written independently of the Swift decoders.

HDR_WHITE = 203.0
HDR_SCALE = 0.4
BT709_TO_BT2020 = [[0.6274, 0.3293, 0.0433], [0.0691, 0.9195, 0.0114], [0.0164, 0.0880, 0.8956]]


def srgb_decode(v):
    v /= 255
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def srgb_encode(v):
    v = min(max(v, 0.0), 1.0)
    return int(round(255 * (12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055)))


def pq_encode(nits):
    m1, m2 = 2610 / 16384, 2523 / 4096 * 128
    c1, c2, c3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
    y = (max(nits, 0.0) / 10000) ** m1
    return ((c1 + c2 * y) / (1 + c3 * y)) ** m2


def hlg_encode(display):
    """BT.2100 HLG for a 1,000-nit display: inverse OOTF (gamma 1.2), then the OETF."""
    yd = 0.2627 * display[0] + 0.6780 * display[1] + 0.0593 * display[2]
    if yd <= 0:
        return [0.0, 0.0, 0.0]
    ys = (yd / 1000) ** (1 / 1.2)
    a, b = 0.17883277, 1 - 4 * 0.17883277
    c = 0.5 - a * math.log(4 * a)
    out = []
    for fd in display:
        e = max(fd / (1000 * ys ** 0.2), 0.0)
        out.append(math.sqrt(3 * e) if e <= 1 / 12 else a * math.log(12 * e - b) + c)
    return out


def hdr_pictures():
    """(the sRGB expectation, its PQ and HLG code values as 16-bit RGB rows)."""
    source = picture()
    dim = Image.new("RGB", source.size)
    pq, hlg = [], []
    for y in range(H):
        pq_row, hlg_row = [], []
        for x in range(W):
            linear = [HDR_SCALE * srgb_decode(v) for v in source.getpixel((x, y))]
            dim.putpixel((x, y), tuple(srgb_encode(v) for v in linear))
            nits = [HDR_WHITE * sum(BT709_TO_BT2020[r][k] * linear[k] for k in range(3)) for r in range(3)]
            pq_row += [int(round(65535 * pq_encode(v))) for v in nits]
            hlg_row += [int(round(65535 * v)) for v in hlg_encode(nits)]
        pq.append(pq_row)
        hlg.append(hlg_row)
    return dim, pq, hlg


def write_hdr_cases():
    import subprocess
    import tempfile
    import numpy
    import png
    dim, pq, hlg = hdr_pictures()
    for name, rows, transfer in [("hdr-pq", pq, 16), ("hdr-hlg", hlg, 18)]:
        samples = numpy.array(rows, dtype=numpy.uint16)
        heif = pillow_heif.from_bytes(mode="RGB;16", size=(W, H), data=samples.tobytes())
        heif.save(OUT / (name + ".heic"), quality=-1, chroma=444, color_primaries=9,
                  transfer_characteristics=transfer, matrix_coefficients=9, full_range_flag=1)
        dim.save(OUT / (name + ".heic.expected.png"))
        print("wrote", OUT / (name + ".heic"))
    # libavif's own encoder (libavif-bin) from a 16-bit PNG: pillow-heif writes no AVIF.
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "pq.png"
        with open(source, "wb") as out:
            png.Writer(W, H, greyscale=False, bitdepth=16).write(out, pq)
        subprocess.run(["avifenc", "--depth", "10", "--yuv", "444", "--cicp", "9/16/9", "--range", "full",
                        "--min", "0", "--max", "0", str(source), str(OUT / "hdr-pq.avif")],
                       check=True, stdout=subprocess.DEVNULL)
    dim.save(OUT / "hdr-pq.avif.expected.png")
    print("wrote", OUT / "hdr-pq.avif")


def write_lab_case(rgb):
    """A TIFF whose pixels are CIELab (Photometric 8, D50, a and b signed), as Pillow
    writes mode LAB; the expectation is Little CMS's conversion of it to sRGB."""
    lab_profile = ImageCms.createProfile("LAB")
    lab = ImageCms.profileToProfile(rgb, SRGB, lab_profile, renderingIntent=ImageCms.Intent.PERCEPTUAL, outputMode="LAB")
    path = OUT / "cielab.tiff"
    lab.save(path, "TIFF")
    decoded = Image.open(path)
    decoded.load()
    out = ImageCms.profileToProfile(decoded, lab_profile, SRGB, renderingIntent=ImageCms.Intent.PERCEPTUAL, outputMode="RGB")
    out.info.pop("icc_profile", None)
    out.save(OUT / "cielab.tiff.expected.png")
    print("wrote", path)


def write_cmyk_without_profile(rgb):
    """CMYK JPEG and TIFF without a profile. The expectation goes through the default CMYK
    profile the library compiles in (Sources/CColorProfiles/fogra39.icc); `.naive.png` is
    the naive conversion browsers and Pillow's convert use, which a nil default gives."""
    fogra39 = (Path(__file__).resolve().parent.parent / "Sources/CColorProfiles/fogra39.icc").read_bytes()
    for name, fmt, save in [("cmyk.jpg", "JPEG", {"quality": 95}), ("cmyk.tiff", "TIFF", {})]:
        path = OUT / name
        rgb.convert("CMYK").save(path, fmt, **save)
        expected(path, fogra39).save(OUT / (name + ".expected.png"))
        plain = Image.open(path).convert("RGB")
        plain.info.pop("icc_profile", None)
        plain.save(OUT / (name + ".naive.png"))
        print("wrote", path)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    srgb = (COLORD / "sRGB.icc").read_bytes()
    adobe = (COLORD / "AdobeRGB1998.icc").read_bytes()
    prophoto = (COLORD / "ProPhotoRGB.icc").read_bytes()
    gray = (FREE / "Gray.icc").read_bytes()
    cmyk = cmyk_profile()
    rgb = picture()

    write_case("srgb.jpg", rgb, "JPEG", srgb, quality=95)
    write_case("display-p3.jpg", rgb, "JPEG", DISPLAY_P3, quality=95)
    write_case("display-p3.png", rgb, "PNG", DISPLAY_P3)
    write_case("display-p3.webp", rgb, "WEBP", DISPLAY_P3, lossless=True)
    write_case("display-p3.avif", rgb, "AVIF", DISPLAY_P3, quality=95)
    write_case("display-p3.heic", rgb, "HEIF", DISPLAY_P3, quality=95)
    write_case("adobe-rgb.jpg", rgb, "JPEG", adobe, quality=95)
    write_case("adobe-rgb.tiff", rgb, "TIFF", adobe)
    write_case("prophoto.jpg", rgb, "JPEG", prophoto, quality=95)
    write_case("gray.jpg", rgb.convert("L"), "JPEG", gray, quality=95)
    # Pillow writes CMYK JPEG the Adobe way: inverted, with an APP14 marker.
    write_case("cmyk-profile.jpg", rgb.convert("CMYK"), "JPEG", cmyk, quality=95)

    # Animations carrying a profile (APNG, animated WebP): the lazy frame sources convert
    # each frame; the expectation is the first frame's conversion.
    second = rgb.transpose(Image.FLIP_LEFT_RIGHT)
    for name, fmt, extra in [("display-p3-animated.png", "PNG", {}),
                             ("display-p3-animated.webp", "WEBP", {"lossless": True})]:
        path = OUT / name
        rgb.save(path, fmt, save_all=True, append_images=[second], duration=100, loop=0,
                 icc_profile=DISPLAY_P3, **extra)
        expected(path, DISPLAY_P3).save(OUT / (name + ".expected.png"))
        print("wrote", path)


    # PNG with only gAMA and cHRM (Adobe RGB's primaries, gamma 1.8): the expected result
    # goes through the profile those chunks describe.
    primaries = [(0.64, 0.33), (0.21, 0.71), (0.15, 0.06)]
    info = PngImagePlugin.PngInfo()
    info.add(b"gAMA", struct.pack(">I", int(round(100000 / 1.8))))
    chrm = [D65[0], D65[1]] + [v for p in primaries for v in p]
    info.add(b"cHRM", struct.pack(">8I", *[int(round(v * 100000)) for v in chrm]))
    path = OUT / "gama-chrm.png"
    rgb.save(path, "PNG", pnginfo=info)
    described = matrix_profile("gAMA/cHRM", primaries, D65, 1.8)
    expected(path, described).save(OUT / "gama-chrm.png.expected.png")
    print("wrote", path)

    write_lab_case(rgb)

    # The CMYK profile itself, for ImageCoderOptions.defaultCMYKProfile's test.
    (OUT / "cmyk-lut.icc").write_bytes(cmyk)
    print("wrote", OUT / "cmyk-lut.icc")

    # CMYK TIFF (print files) with a CMYK profile.
    write_case("cmyk-profile.tiff", rgb.convert("CMYK"), "TIFF", cmyk)
    write_cmyk_without_profile(rgb)

    # 16-bit grey: value = x * 1021 + y * 7 (so rounding and the high byte differ).
    img16 = Image.new("I;16", (64, 16))
    img16.putdata([x * 1021 + y * 7 for y in range(16) for x in range(64)])
    img16.save(OUT / "gray16.png", "PNG")
    print("wrote", OUT / "gray16.png")

    write_hdr_cases()


if __name__ == "__main__":
    main()
