#!/usr/bin/env python3
"""What converting an embedded Display P3 profile to sRGB costs, ours beside Pillow + ImageCms.

Makes a 12 MP (4000x3000) Display P3 JPEG (a photo-like picture, quality 90), then times,
each in one run and alternating so both see the same machine:
- full decode with the conversion vs full decode keeping the source's pixels;
- a 512-pixel thumbnail with the conversion vs without;
- Pillow doing the same: decode (draft + thumbnail for the thumbnail) and
  ImageCms.applyTransform with a transform built once, as our cache does.
With --cmyk, the same for the default CMYK profile instead: the picture as a 12 MP CMYK
JPEG without a profile, converted through Coated FOGRA39 (our default) against the naive
formula (`--naive-cmyk`), and Pillow doing each: convert("RGB") (naive) and ImageCms
through the same profile file.
Usage: python3 Benchmarks/color.py --bin .build/release [--cmyk]   (Benchmarks/color.sh sets it up)
"""
import argparse
import io
import json
import os
import statistics
import subprocess
import tempfile
import time

from PIL import Image, ImageCms, ImageFilter

import importlib.util  # noqa: E402

# The Display P3 profile the colour fixtures use, from the script that writes it.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("fixtures", os.path.join(ROOT, "scripts", "make-color-fixtures.py"))
fixtures = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fixtures)


def make_photo(path):
    small = Image.effect_mandelbrot((400, 300), (-2.2, -1.2, 1.0, 1.2), 60).convert("RGB")
    noise = Image.effect_noise((4000, 3000), 40).convert("RGB")
    big = Image.blend(small.resize((4000, 3000), Image.BICUBIC), noise, 0.25)
    tinted = Image.merge("RGB", [big.getchannel(0), big.getchannel(1).point(lambda v: 255 - v), big.getchannel(2)])
    tinted.filter(ImageFilter.SMOOTH).save(path, "JPEG", quality=90, icc_profile=fixtures.DISPLAY_P3)


SECONDS = [3.0]


def ours(bench, path, *flags):
    seconds = SECONDS[0]
    out = subprocess.run([bench, path, "--seconds", str(seconds), *flags], check=True, capture_output=True, text=True)
    result = json.loads(out.stdout)
    return result["median_ms"], result["cpu_median_ms"]


def timed_median(fn, minimum=5):
    seconds = SECONDS[0]
    fn()
    times = []
    deadline = time.perf_counter() + seconds
    while len(times) < minimum or time.perf_counter() < deadline:
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def measure(bench, path, flags, pillow, rounds):
    """Best of `rounds` medians (ms), taking turns: ours for each set of flags (wall and
    CPU time), then each Pillow function."""
    rows = {key: [] for key in [*flags, *pillow]}
    cpu = {key: [] for key in flags}
    for _ in range(rounds):
        for key, extra in flags.items():
            wall, busy = ours(bench, path, *extra)
            rows[key].append(wall)
            cpu[key].append(busy)
        for key, run in pillow.items():
            rows[key].append(timed_median(run))
    return {key: min(values) for key, values in rows.items()}, {key: min(values) for key, values in cpu.items()}


def print_table(title, m, pairs):
    """One line per (label, our key, Pillow's key), with the ratio."""
    print(title)
    print(f"{'':34} {'ours':>8} {'Pillow':>8} {'ours/Pillow':>12}")
    for label, a, b in pairs:
        print(f"{label:34} {m[a]:8.1f} {m[b]:8.1f} {m[a] / m[b]:12.2f}")


def cmyk(bench, rounds):
    """The default CMYK profile's price: ours and Pillow, profile against naive."""
    fogra39 = os.path.join(ROOT, "Sources", "CColorProfiles", "fogra39.icc")
    with tempfile.TemporaryDirectory() as tmp:
        rgb_path = os.path.join(tmp, "rgb.jpg")
        make_photo(rgb_path)
        path = os.path.join(tmp, "cmyk-12mp.jpg")
        Image.open(rgb_path).convert("CMYK").save(path, "JPEG", quality=90)
        transform = ImageCms.buildTransform(ImageCms.getOpenProfile(fogra39), ImageCms.createProfile("sRGB"),
                                            "CMYK", "RGB", renderingIntent=ImageCms.Intent.PERCEPTUAL)

        def pillow(profile):
            def run():
                im = Image.open(path)
                im.load()
                if profile:
                    ImageCms.applyTransform(im, transform)
                else:
                    im.convert("RGB")
            return run

        m, c = measure(bench, path, {"full": [], "full_naive": ["--naive-cmyk"]},
                       {"p_full": pillow(True), "p_full_naive": pillow(False)}, rounds)
        print_table(f"12 MP CMYK JPEG without a profile, best of {rounds} medians (ms)", m,
                    [("full decode, naive CMYK", "full_naive", "p_full_naive"),
                     ("full decode, Coated FOGRA39", "full", "p_full")])
        print(f"the profile adds: ours {100 * (m['full'] / m['full_naive'] - 1):+.1f} % "
              f"(CPU {100 * (c['full'] / c['full_naive'] - 1):+.1f} %), "
              f"Pillow {100 * (m['p_full'] / m['p_full_naive'] - 1):+.1f} %")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0, help="time budget of each measurement")
    parser.add_argument("--cmyk", action="store_true", help="price the default CMYK profile instead")
    args = parser.parse_args()
    SECONDS[0] = args.seconds
    bench = os.path.join(args.bin, "webimage-bench")
    if args.cmyk:
        cmyk(bench, args.rounds)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "p3-12mp.jpg")
        make_photo(path)
        src = ImageCms.ImageCmsProfile(io.BytesIO(fixtures.DISPLAY_P3))
        transform = ImageCms.buildTransform(src, ImageCms.createProfile("sRGB"), "RGB", "RGB",
                                            renderingIntent=ImageCms.Intent.PERCEPTUAL)

        def pillow_full(convert):
            def run():
                im = Image.open(path)
                im.load()
                if convert:
                    ImageCms.applyTransform(im, transform, inPlace=True)
            return run

        def pillow_thumb(convert):
            def run():
                im = Image.open(path)
                # thumbnail() drafts at twice the size itself (reducing_gap=2), as ours
                # leaves a factor of two for the resample.
                im.thumbnail((512, 512), Image.LANCZOS)
                if convert:
                    ImageCms.applyTransform(im, transform, inPlace=True)
            return run

        flags = {"full": [], "full_keep": ["--keep-profile"], "thumb": ["--thumbnail", "512"],
                 "thumb_keep": ["--thumbnail", "512", "--keep-profile"]}
        pillow = {"p_full": pillow_full(True), "p_full_plain": pillow_full(False),
                  "p_thumb": pillow_thumb(True), "p_thumb_plain": pillow_thumb(False)}
        m, c = measure(bench, path, flags, pillow, args.rounds)
        print_table(f"12 MP Display P3 JPEG, best of {args.rounds} medians (ms)", m,
                    [("full decode, kept pixels", "full_keep", "p_full_plain"),
                     ("full decode + to sRGB", "full", "p_full"),
                     ("thumbnail 512, kept pixels", "thumb_keep", "p_thumb_plain"),
                     ("thumbnail 512 + to sRGB", "thumb", "p_thumb")])
        print(f"conversion adds: ours full {100 * (m['full'] / m['full_keep'] - 1):+.1f} %, "
              f"thumbnail {100 * (m['thumb'] / m['thumb_keep'] - 1):+.1f} %; "
              f"Pillow full {100 * (m['p_full'] / m['p_full_plain'] - 1):+.1f} %, "
              f"thumbnail {100 * (m['p_thumb'] / m['p_thumb_plain'] - 1):+.1f} %")
        # Our conversion may run on several cores: its CPU time (all threads) beside the wall time.
        print(f"ours, CPU time (ms, all threads): full kept {c['full_keep']:.1f}, to sRGB {c['full']:.1f} "
              f"({100 * (c['full'] / c['full_keep'] - 1):+.1f} %); thumbnail kept {c['thumb_keep']:.1f}, "
              f"to sRGB {c['thumb']:.1f} ({100 * (c['thumb'] / c['thumb_keep'] - 1):+.1f} %)")


if __name__ == "__main__":
    main()
