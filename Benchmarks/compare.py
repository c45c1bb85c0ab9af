#!/usr/bin/env python3
"""Runs swift-web-image and the reference decoders side by side and prints the ratios.

Each line: what was measured, our time, the reference's time, and ours/reference
(below 1.00 means we are faster). In-process timings are medians of repeated decodes;
whole-process timings include start-up and writing the output file, and come with the
peak resident memory of the process.
"""
import argparse, io, json, os, re, statistics, subprocess, sys, tempfile, time


def ours(bench, path, *flags, seconds=1.5):
    out = subprocess.run([bench, path, "--seconds", str(seconds), *flags], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["median_ms"]


def timed_median(fn, seconds=1.5, minimum=5):
    fn()
    runs, deadline = [], time.perf_counter() + seconds
    while len(runs) < minimum or time.perf_counter() < deadline:
        start = time.perf_counter()
        fn()
        runs.append((time.perf_counter() - start) * 1000)
    return statistics.median(runs)


def tjbench_ms(path):
    out = subprocess.run(["tjbench", path, "-benchtime", "1.5", "-warmup", "0.5", "-nowrite", "-rgbx"],
                         check=True, capture_output=True, text=True).stdout
    fps = float(re.search(r"Decompress\s+--> Frame rate:\s+([\d.]+)", out).group(1))
    return 1000 / fps


def process(cmd, repeats=5):
    """Median wall time (ms) and peak RSS (MiB) of a whole command.

    Peak memory comes from GNU time rather than wait4 in this process: a child forked
    from Python inherits Python's resident pages into its high-water mark before exec.
    """
    times, peak = [], 0
    for _ in range(repeats):
        start = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        times.append((time.perf_counter() - start) * 1000)
        if proc.returncode != 0:
            sys.exit(f"failed: {' '.join(cmd)}: {proc.stderr}")
        peak = max(peak, int(proc.stderr.strip().splitlines()[-1]) / 1024)
    return statistics.median(times), peak


def alternating(ours_fn, ref_fn, rounds=3):
    """Best of several alternating rounds for each side: on a shared machine the load
    drifts, and alternating keeps both sides under the same conditions."""
    mine, ref = [], []
    for _ in range(rounds):
        mine.append(ours_fn())
        ref.append(ref_fn())
    return min(mine), min(ref)


def line(name, mine, ref, ref_name):
    print(f"{name:<44} ours {mine:9.2f} ms   {ref_name:<16} {ref:9.2f} ms   ours/ref {mine / ref:5.2f}")


def main():
    from PIL import Image, ImageSequence, features
    import PIL
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--animation-only", action="store_true", help="run only the Animation section")
    args = parser.parse_args()
    bench = os.path.join(args.bin, "webimage-bench")
    cli = os.path.join(args.bin, "webimage")
    corpus = args.corpus
    jfif = os.path.join(corpus, "TestJFIF.jpg")
    versions = {
        "libjpeg-turbo": subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libjpeg62-turbo"], capture_output=True, text=True).stdout,
        "Pillow": PIL.__version__,
        "libvips": subprocess.run(["vips", "--version"], capture_output=True, text=True).stdout.strip(),
    }
    print("references:", ", ".join(f"{k} {v}" for k, v in versions.items()))
    print(f"machine: {os.cpu_count()} cores, {os.uname().machine}, {open('/proc/cpuinfo').read().split('model name')[1].split(':')[1].splitlines()[0].strip()}")
    print()
    if args.animation_only:
        return animation(args.bin, corpus)

    def pillow_full(path, first_only=True):
        def run():
            with Image.open(path) as im:
                im.load()
        return run

    # TestJFIF.jpg carries a Display P3 profile. tjbench and Pillow's load() do not convert
    # colours, so ours keeps the profile here too (--keep-profile); Benchmarks/color.py
    # prices the conversion. vipsthumbnail 8.14 does not convert either unless given
    # --export-profile (it keeps the pixels and embeds the profile, measured: up to 66
    # levels apart from its sRGB export), so the whole-process lines run ours with
    # --metadata icc, which does the same; the Pillow script keeps the pixels too.
    print("== JPEG full decode, TestJFIF.jpg (4032x3024, 12 MP) ==")
    mine_raw, tj = alternating(lambda: ours(bench, jfif, "--no-orientation", "--keep-profile"), lambda: tjbench_ms(jfif))
    line("decode to RGBA, as stored", mine_raw, tj, "tjbench -rgbx")
    mine, tj = alternating(lambda: ours(bench, jfif, "--keep-profile"), lambda: tjbench_ms(jfif))
    line("decode to RGBA + EXIF orientation (default)", mine, tj, "tjbench -rgbx")
    mine_raw, pil = alternating(lambda: ours(bench, jfif, "--no-orientation", "--keep-profile"), lambda: timed_median(pillow_full(jfif)))
    line("decode to RGBA, as stored", mine_raw, pil, "Pillow load")
    print()

    # Pillow's thumbnail() asks draft() for twice the size itself (reducing_gap=2): the
    # 1/4 DCT scale here (1008x756), as ours and vipsthumbnail take. An explicit
    # draft((256, 256)) first would decode at 1/8 (504x378) and resample by less than 2.
    print("== JPEG thumbnail to 256 px, TestJFIF.jpg ==")
    def pillow_thumb():
        with Image.open(jfif) as im:
            im.thumbnail((256, 256), Image.LANCZOS)
    mine_thumb, pil_thumb = alternating(lambda: ours(bench, jfif, "--thumbnail", "256", "--keep-profile"), lambda: timed_median(pillow_thumb))
    line("in-process thumbnail", mine_thumb, pil_thumb, "Pillow thumbnail")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.png")
        ours_cmd = [cli, "decode", jfif, "--thumbnail", "256x256", "--metadata", "icc", "-o", out]
        vips_cmd = ["vipsthumbnail", jfif, "-s", "256", "-o", out]
        pil_cmd = [sys.executable, "-c",
            "import sys; from PIL import Image, ImageOps\n"
            "im = Image.open(sys.argv[1]); im.draft('RGB', (512, 512)); im = ImageOps.exif_transpose(im)\n"
            "im.thumbnail((256, 256), Image.LANCZOS); im.save(sys.argv[2])", jfif, out]
        our_proc, vips_proc = alternating(lambda: process(ours_cmd), lambda: process(vips_cmd))
        _, pil_proc = alternating(lambda: (0, 0), lambda: process(pil_cmd))
        our_full = process([cli, "decode", jfif, "-o", out], repeats=1)
        line("whole process, thumbnail -> PNG", our_proc[0], vips_proc[0], "vipsthumbnail")
        line("whole process, thumbnail -> PNG", our_proc[0], pil_proc[0], "python+Pillow")
        print(f"{'peak memory (MiB)':<44} ours {our_proc[1]:9.1f}      vipsthumbnail {vips_proc[1]:9.1f}      Pillow {pil_proc[1]:7.1f}      ours full decode {our_full[1]:7.1f}")
    print()

    print("== PNG and WebP decode, largest corpus files ==")
    cases = [
        ("TestImageLarge.png (first frame)", "TestImageLarge.png", ["--first-frame-only"], pillow_full, "Pillow load"),
        ("TestImageStatic.webp", "TestImageStatic.webp", [], pillow_full, "Pillow load"),
    ]
    for title, name, flags, reference, ref_name in cases:
        path = os.path.join(corpus, name)
        mine, ref = alternating(lambda: ours(bench, path, *flags), lambda: timed_median(reference(path)))
        line(title, mine, ref, ref_name)
    print()
    animation(args.bin, corpus)


def pillow_all_frames(path):
    from PIL import Image, ImageSequence
    def run():
        with Image.open(path) as im:
            for frame in ImageSequence.Iterator(im):
                frame.load()
    return run


def animation(bin_dir, corpus):
    """Every frame through the lazy AnimatedImage path, and the player's peak memory."""
    anim = os.path.join(bin_dir, "anim-bench")
    bench = os.path.join(bin_dir, "webimage-bench")
    print("== Animation: all frames, one-shot and lazy, against Pillow ImageSequence ==")
    for name in ["1@2x.gif", "TestAnimatedImageMemory.webp"]:
        path = os.path.join(corpus, name)
        def lazy():
            out = subprocess.run([anim, path, "--lazy", "--seconds", "1.5"], check=True, capture_output=True, text=True).stdout
            return json.loads(out)["median_ms"]
        mine, pillow = alternating(lambda: ours(bench, path), lambda: timed_median(pillow_all_frames(path)))
        line(f"{name} one-shot decode", mine, pillow, "Pillow frames")
        mine, pillow = alternating(lazy, lambda: timed_median(pillow_all_frames(path)))
        line(f"{name} lazy, frame by frame", mine, pillow, "Pillow frames")
    print()
    webp = os.path.join(corpus, "TestAnimatedImageMemory.webp")
    frame = 600 * 600 * 4
    print("== Animation: peak memory playing TestAnimatedImageMemory.webp (16 frames, 600x600) once ==")
    for label, flags in [("player, buffer 1 (no look-ahead)", ["--play", "--buffer", "1"]),
                         ("player, buffer 2 frames", ["--play", "--buffer", str(2 * frame)]),
                         ("player, buffer 4 frames", ["--play", "--buffer", str(4 * frame)]),
                         ("every frame decoded up front", ["--upfront"])]:
        _, peak = process([anim, webp, *flags], repeats=3)
        print(f"{label:<44} peak RSS {peak:7.1f} MiB")


if __name__ == "__main__":
    main()
