#!/usr/bin/env python3
"""The libvips reference of the image-service benchmark: imgproxy's engine, without imgproxy.

Usage: vips_server.py --bind 127.0.0.1:PORT [--workers 2] [--pipeline thumbnail|shrink-on-load]

    GET /fit/W/H/QUALITY/EXT/HOST:PORT/PATH

fetches http://HOST:PORT/PATH (one keep-alive aiohttp session), then on one of WORKERS
threads shrinks the image to fit W x H and writes it in the format of EXT: jpg (Q,
optimize_coding), webp (Q, effort 4 = libwebp method 4), avif (Q, effort AVIF_EFFORT, default
1 = AV1 speed 8), png (compression 6, all filters, as libpng and Pillow choose; libvips's
default of no filter is faster but ~25 % larger); metadata stripped.

Pipelines:
  thumbnail       pyvips.Image.thumbnail_buffer(data, W, height=H): libvips's own thumbnailer.
                  It leaves at least a 2x reduction after shrink-on-load (for quality), so a
                  2040-px JPEG going to 512 px is decoded at full size.
  shrink-on-load  imgproxy's rule: the JPEG is decoded at the largest 1/2, 1/4 or 1/8 scale
                  that still covers the box (2040 px -> 1/2, 1020 px), then resize() with
                  Lanczos-3 to fit.
As imgproxy runs libvips: the operation cache off (no result caching) and
VIPS_CONCURRENCY=1 (one thread per image; parallelism comes from the workers). No queue limit.
"""
import argparse
import asyncio
import os
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault("VIPS_CONCURRENCY", "1")

import aiohttp  # noqa: E402
import pyvips  # noqa: E402
from aiohttp import web  # noqa: E402

pyvips.cache_set_max(0)
pyvips.cache_set_max_mem(0)
pyvips.cache_set_max_files(0)

AVIF_EFFORT = int(os.environ.get("AVIF_EFFORT", "1"))
SAVERS = {
    "jpg": ("image/jpeg", ".jpg[Q={q},optimize_coding=true,strip=true]"),
    "webp": ("image/webp", ".webp[Q={q},effort=4,strip=true]"),
    "avif": ("image/avif", ".avif[Q={q},effort=%d,strip=true]" % AVIF_EFFORT),
    "png": ("image/png", ".png[compression=6,filter=all,strip=true]"),
}
PIPELINE = "thumbnail"


def shrink_on_load(data, width, height):
    header = pyvips.Image.new_from_buffer(data, "", access="sequential")
    scale = min(width / header.width, height / header.height)
    if scale >= 1:
        return header
    shrink = 1
    if header.get("vips-loader").startswith("jpegload"):
        shrink = next((s for s in (8, 4, 2) if 1 / s >= scale), 1)
    image = pyvips.Image.new_from_buffer(data, "", access="sequential", shrink=shrink) if shrink > 1 else header
    return image.resize(min(width / image.width, height / image.height), kernel="lanczos3")


def process(data, width, height, quality, ext):
    if PIPELINE == "thumbnail":
        image = pyvips.Image.thumbnail_buffer(data, width, height=height)
    else:
        image = shrink_on_load(data, width, height)
    return image.write_to_buffer(SAVERS[ext][1].format(q=quality))


async def handle(request):
    info = request.match_info
    ext = info["ext"]
    if ext not in SAVERS:
        return web.Response(status=400, text="unknown format\n")
    async with request.app["session"].get("http://" + info["source"]) as upstream:
        if upstream.status != 200:
            return web.Response(status=502, text=f"origin answered {upstream.status}\n")
        data = await upstream.read()
    loop = asyncio.get_running_loop()
    try:
        body = await loop.run_in_executor(
            request.app["pool"], process, data, int(info["w"]), int(info["h"]), int(info["q"]), ext
        )
    except pyvips.Error as error:
        return web.Response(status=422, text=str(error) + "\n")
    return web.Response(body=body, content_type=SAVERS[ext][0])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bind", default="127.0.0.1:8082")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pipeline", choices=["thumbnail", "shrink-on-load"], default="thumbnail")
    args = parser.parse_args()
    global PIPELINE
    PIPELINE = args.pipeline
    host, port = args.bind.rsplit(":", 1)

    async def start(app):
        app["session"] = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64))
        app["pool"] = ThreadPoolExecutor(max_workers=args.workers)

    async def stop(app):
        await app["session"].close()
        app["pool"].shutdown(wait=False)

    app = web.Application()
    app.router.add_get("/fit/{w:\\d+}/{h:\\d+}/{q:\\d+}/{ext}/{source:.+}", handle)
    app.router.add_get("/health", lambda request: web.Response(text="OK\n"))
    app.on_startup.append(start)
    app.on_cleanup.append(stop)
    print(f"vips_server: libvips {pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)}, "
          f"{PIPELINE}, listening on {host}:{port}", flush=True)
    web.run_app(app, host=host, port=int(port), access_log=None, print=None)


if __name__ == "__main__":
    main()
