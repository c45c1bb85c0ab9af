#!/usr/bin/env python3
"""What the lazily opened SVG and PDF libraries cost a process that never uses them, and
what a thousand-page PDF costs against a one-page one.

Usage: python3 Benchmarks/vector_libraries.py BIN_DIR [CORPUS_DIR] (BIN_DIR holds `webimage`).

1. `webimage info TestImage.png`, as built (librsvg and poppler opened only on an SVG or
   PDF), beside the same run with both preloaded (LD_PRELOAD), which is what linking them
   would cost at start-up: wall time (median), peak resident memory (median) and the
   number of shared objects the loader mapped (LD_DEBUG=files).
2. `webimage info` of a PDF of a thousand pages beside one of one page (the same small
   page), and `decode --page 999` of the former beside `decode` of the latter.
Ours first, the reference second, then the ratio, one line per measurement.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = 31


def run(argv, env=None):
    """Wall seconds and peak RSS (KiB) of one child."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0:
        sys.exit(f"{argv} failed with status {status}")
    return elapsed, usage.ru_maxrss


def measure(ours, reference):
    """Median wall time (ms) and median peak RSS (MiB) of two (argv, env) commands over RUNS
    runs each, after a warm-up, taking turns so that load drift on a shared machine hits
    both alike."""
    samples = {0: [], 1: []}
    for side, (argv, env) in enumerate((ours, reference)):
        run(argv, env)
    for _ in range(RUNS):
        for side, (argv, env) in enumerate((ours, reference)):
            samples[side].append(run(argv, env))
    return [(statistics.median(s[0] for s in samples[side]) * 1000, statistics.median(s[1] for s in samples[side]) / 1024)
            for side in (0, 1)]


def mapped_objects(argv, env):
    """How many shared objects the dynamic loader opened for one run."""
    trace = subprocess.run(argv, env={**env, "LD_DEBUG": "files"}, capture_output=True, text=True).stderr
    return sum(1 for line in trace.splitlines() if "generating link map" in line)


def pdf(pages):
    """A valid PDF of `pages` 100x50-point pages, each filled with a colour."""
    body, offsets = "%PDF-1.4\n", []

    def obj(text):
        nonlocal body
        offsets.append(len(body))
        body += f"{len(offsets)} 0 obj\n{text}\nendobj\n"

    obj("<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(pages))
    obj(f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>")
    for i in range(pages):
        obj(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 50] /Contents {4 + 2 * i} 0 R >>")
        fill = f"{i % 7 / 7:.3f} 0.5 0.5 rg 0 0 100 50 re f"
        obj(f"<< /Length {len(fill)} >>\nstream\n{fill}\nendstream")
    xref = len(body)
    body += f"xref\n0 {len(offsets) + 1}\n0000000000 65535 f \n" + "".join(f"{o:010d} 00000 n \n" for o in offsets)
    body += f"trailer\n<< /Size {len(offsets) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    return body.encode()


def main():
    bin_dir = sys.argv[1]
    corpus = sys.argv[2] if len(sys.argv) > 2 else "Corpus/sdwebimage"
    webimage = os.path.join(bin_dir, "webimage")
    png = [webimage, "info", os.path.join(corpus, "TestImage.png")]
    env = dict(os.environ)
    linked = {**env, "LD_PRELOAD": "librsvg-2.so.2 libpoppler-glib.so.8"}
    (ours_ms, ours_mib), (ref_ms, ref_mib) = measure((png, env), (png, linked))
    print(f"info TestImage.png, wall time: {ours_ms:.1f} ms | with librsvg+poppler loaded {ref_ms:.1f} ms | {ours_ms / ref_ms:.2f}")
    print(f"info TestImage.png, peak RSS: {ours_mib:.1f} MiB | with librsvg+poppler loaded {ref_mib:.1f} MiB | {ours_mib / ref_mib:.2f}")
    ours_n, ref_n = mapped_objects(png, env), mapped_objects(png, linked)
    print(f"info TestImage.png, shared objects mapped: {ours_n} | with librsvg+poppler loaded {ref_n} | {ours_n / ref_n:.2f}")
    with tempfile.TemporaryDirectory() as scratch:
        one, thousand = os.path.join(scratch, "one.pdf"), os.path.join(scratch, "thousand.pdf")
        with open(one, "wb") as f:
            f.write(pdf(1))
        with open(thousand, "wb") as f:
            f.write(pdf(1000))
        (first_ms, _), (single_ms, _) = measure(([webimage, "info", thousand], env), ([webimage, "info", one], env))
        print(f"info of page 1, PDF of 1000 pages: {first_ms:.1f} ms | PDF of 1 page {single_ms:.1f} ms | {first_ms / single_ms:.2f}")
        out = os.path.join(scratch, "page.png")
        (last_ms, _), (one_ms, _) = measure(([webimage, "decode", thousand, "--page", "999", "-o", out], env),
                                            ([webimage, "decode", one, "-o", out], env))
        print(f"decode of page 1000 of 1000 -> PNG: {last_ms:.1f} ms | page 1 of 1 {one_ms:.1f} ms | {last_ms / one_ms:.2f}")


if __name__ == "__main__":
    main()
