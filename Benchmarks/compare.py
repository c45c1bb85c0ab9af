#!/usr/bin/env python3
"""Runs swift-web-image and the reference decoders side by side and prints the ratios.

Each line: what was measured, our time, the reference's time, and ours/reference
(below 1.00 means we are faster). In-process timings are medians of repeated decodes;
whole-process timings include start-up and writing the output file, and come with the
peak resident memory of the process.
"""
import argparse, io, json, os, re, statistics, subprocess, sys, tempfile, time


def ours(bench, path, *flags, seconds=3):
    out = subprocess.run([bench, path, "--seconds", str(seconds), *flags], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["median_ms"]


def timed_median(fn, seconds=3, minimum=5):
    fn()
    runs, deadline = [], time.perf_counter() + seconds
    while len(runs) < minimum or time.perf_counter() < deadline:
        start = time.perf_counter()
        fn()
        runs.append((time.perf_counter() - start) * 1000)
    return statistics.median(runs)


def tjbench_ms(path):
    out = subprocess.run(["tjbench", path, "-benchtime", "3", "-warmup", "1", "-nowrite", "-rgbx"],
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

    print("== JPEG full decode, TestJFIF.jpg (4032x3024, 12 MP) ==")
    mine_raw = ours(bench, jfif, "--no-orientation")
    mine = ours(bench, jfif)
    tj = tjbench_ms(jfif)
    line("decode to RGBA, as stored", mine_raw, tj, "tjbench -rgbx")
    line("decode to RGBA + EXIF orientation (default)", mine, tj, "tjbench -rgbx")
    line("decode to RGBA, as stored", mine_raw, timed_median(pillow_full(jfif)), "Pillow load")
    print()

    print("== JPEG thumbnail to 256 px, TestJFIF.jpg ==")
    mine_thumb = ours(bench, jfif, "--thumbnail", "256")
    def pillow_thumb():
        with Image.open(jfif) as im:
            im.draft("RGB", (256, 256))
            im.thumbnail((256, 256), Image.LANCZOS)
    line("in-process thumbnail", mine_thumb, timed_median(pillow_thumb), "Pillow draft+thumb")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.png")
        our_proc = process([cli, "decode", jfif, "--thumbnail", "256x256", "-o", out])
        vips_proc = process(["vipsthumbnail", jfif, "-s", "256", "-o", out])
        pil_proc = process([sys.executable, "-c",
            "import sys; from PIL import Image, ImageOps\n"
            "im = Image.open(sys.argv[1]); im.draft('RGB', (256, 256)); im = ImageOps.exif_transpose(im)\n"
            "im.thumbnail((256, 256), Image.LANCZOS); im.save(sys.argv[2])", jfif, out])
        our_full = process([cli, "decode", jfif, "-o", out], repeats=1)
        line("whole process, thumbnail -> PNG", our_proc[0], vips_proc[0], "vipsthumbnail")
        line("whole process, thumbnail -> PNG", our_proc[0], pil_proc[0], "python+Pillow")
        print(f"{'peak memory (MiB)':<44} ours {our_proc[1]:9.1f}      vipsthumbnail {vips_proc[1]:9.1f}      Pillow {pil_proc[1]:7.1f}      ours full decode {our_full[1]:7.1f}")
    print()

    print("== PNG and WebP decode, largest corpus files ==")
    png = os.path.join(corpus, "TestImageLarge.png")
    line("TestImageLarge.png (first frame)", ours(bench, png, "--first-frame-only"), timed_median(pillow_full(png)), "Pillow load")
    webp = os.path.join(corpus, "TestImageStatic.webp")
    line("TestImageStatic.webp", ours(bench, webp), timed_median(pillow_full(webp)), "Pillow load")
    anim = os.path.join(corpus, "TestAnimatedImageMemory.webp")
    line("TestAnimatedImageMemory.webp (all frames)", ours(bench, anim), timed_median(pillow_all_frames(anim)), "Pillow frames")
    gif = os.path.join(corpus, "1@2x.gif")
    line("1@2x.gif (all frames)", ours(bench, gif), timed_median(pillow_all_frames(gif)), "Pillow frames")
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
        pillow = timed_median(pillow_all_frames(path))
        line(f"{name} one-shot decode", ours(bench, path), pillow, "Pillow frames")
        out = subprocess.run([anim, path, "--lazy", "--seconds", "3"], check=True, capture_output=True, text=True).stdout
        line(f"{name} lazy, frame by frame", json.loads(out)["median_ms"], pillow, "Pillow frames")
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
