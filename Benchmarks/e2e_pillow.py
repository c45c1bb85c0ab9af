#!/usr/bin/env python3
"""The end-to-end benchmark's reference: what `webimage prefetch --thumbnail` does, in Python.

Usage: e2e_pillow.py --from LIST --cache-dir DIR [--workers N] [--size 256] [--quality 85] [--lazy-import]

For each URL of LIST (one per line), on a thread pool: if DIR holds the URL's thumbnail
(file named by the SHA-1 of the URL), open and decode it; otherwise download the image
(one keep-alive connection per thread), decode it at the smallest JPEG DCT scale that still
covers twice the size (`thumbnail`'s own `draft`, reducing_gap=2, as ours leaves a factor of
two), shrink it to fit SIZExSIZE keeping its aspect ratio (Lanczos),
turn it upright by its EXIF orientation, and save it as JPEG (optimised Huffman tables, as
our encoder does) through a temporary file and a rename. Pillow releases the GIL while it
decodes, resizes and encodes, so the threads use every core for the image work.

Prints one summary line: how many came from the network and from disk. Exits 1 on any failure.
"""
import argparse
import hashlib
import inspect
import io
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

from PIL import Image, ImageOps

_local = threading.local()
_requests = []


def http_library():
    """requests if installed, else None (the standard library's keep-alive client). Imported
    at start-up, as a script's top-level import would be, unless --lazy-import defers it to
    the first download (then a warm run does not pay ~0.15 s for it)."""
    if not _requests:
        try:
            import requests
        except ImportError:
            requests = None
        _requests.append(requests)
    return _requests[0]


def fetch(url, timeout):
    """The body of `url`, over this thread's own keep-alive connection."""
    requests = http_library()
    if requests is not None:
        session = getattr(_local, "session", None)
        if session is None:
            session = _local.session = requests.Session()
        response = session.get(url, timeout=timeout)
        response.raise_for_status()
        return response.content
    import http.client
    from urllib.parse import urlsplit
    parts = urlsplit(url)
    connection = getattr(_local, "connection", None)
    if connection is None or connection.host != parts.hostname or connection.port != parts.port:
        connection = _local.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    path = parts.path + ("?" + parts.query if parts.query else "")
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    if not 200 <= response.status < 300:
        raise RuntimeError(f"HTTP {response.status} for {url}")
    return body


# Pillow 9.4 (Debian 12's, which the benchmarks install when no Pillow is importable) has
# no `in_place`; newer ones save a copy with it.
TRANSPOSES_IN_PLACE = "in_place" in inspect.signature(ImageOps.exif_transpose).parameters


def thumbnail(url, folder, size, quality, timeout):
    path = os.path.join(folder, hashlib.sha1(url.encode()).hexdigest() + ".jpg")
    if os.path.exists(path):
        with Image.open(path) as img:
            img.load()
            return "disk", img.size
    img = Image.open(io.BytesIO(fetch(url, timeout)))
    img.thumbnail((size, size), Image.LANCZOS)
    if TRANSPOSES_IN_PLACE:
        ImageOps.exif_transpose(img, in_place=True)
    else:
        img = ImageOps.exif_transpose(img)
    if img.mode not in ("RGB", "L"):
        img = img.convert("RGB")
    temporary = f"{path}.{threading.get_ident()}.tmp"
    img.save(temporary, "JPEG", quality=quality, optimize=True)
    os.replace(temporary, path)
    return "network", img.size


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--from", dest="source", required=True)
    parser.add_argument("--cache-dir", required=True)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--quality", type=int, default=85)
    parser.add_argument("--timeout", type=float, default=15)
    parser.add_argument("--lazy-import", action="store_true")
    args = parser.parse_args()
    if not args.lazy_import:
        http_library()
    with open(args.source) as f:
        urls = [line.strip() for line in f if line.strip() and not line.lstrip().startswith("#")]
    os.makedirs(args.cache_dir, exist_ok=True)
    counts = {"network": 0, "disk": 0}
    failures = 0
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        futures = [pool.submit(thumbnail, url, args.cache_dir, args.size, args.quality, args.timeout) for url in urls]
        for url, future in zip(urls, futures):
            try:
                source, _ = future.result()
                counts[source] += 1
            except Exception as error:  # one line per failure, as the CLI prints
                failures += 1
                print(f"failed {url}: {error}", file=sys.stderr)
    print(f"{len(urls)} URLs: {counts['network']} from network, {counts['disk']} from disk, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
