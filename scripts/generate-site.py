#!/usr/bin/env python3
"""Generates a static site for the preload benchmark, with its ground truth.

Each of P pages references the same 23 site-wide requisites (stylesheets with their images and
fonts, scripts, icons, the manifest and its icons, a framed widget with its stylesheet and image,
an image shown without scripts) and K images, half drawn from a shared pool of 2K, half its own.
References use the forms a browser or wget2 --page-requisites follows: link rel=stylesheet, script
src, img src and srcset, picture/source, a style attribute, a <style> block, link rel=icon and
preload, a web app manifest with icons, iframe src, <noscript> content, and in the stylesheets
@import, url() images and @font-face fonts. Sizes range from 1 KB to 2 MB (most small, a few large).

With --common, the site holds only what wget2 --page-requisites finds too, so that both tools fetch
the same URLs: the imported stylesheet references nothing (wget2 does not read what a stylesheet that
another imports references), and pages link no icons and no manifest. The 10 requisites this leaves
unreferenced are not written; everything else is the same, byte for byte.

With --small, every file is 1 KB to 8 KB instead: a site of many small responses, where what each
response costs besides its bytes decides the time.

Writes into ROOT: the site under site/, urls.txt (one page path a line, relative to the site) and
truth.json: {"pages": [...], "requisites": [...every requisite path once...], "bytes": N}.

Usage: scripts/generate-site.py ROOT [--pages P] [--requisites K] [--seed S] [--common] [--small]
"""

import argparse
import json
import math
import os
import random
import sys


def size_for(rng, small=False):
    """A body size: 80 % between 1 KB and 64 KB, 20 % between 64 KB and 2 MB, log-uniform; with
    small, between 1 KB and 8 KB."""
    if small:
        low, high = 1024, 8 * 1024
    elif rng.random() < 0.8:
        low, high = 1024, 64 * 1024
    else:
        low, high = 64 * 1024, 2 * 1024 * 1024
    return int(math.exp(rng.uniform(math.log(low), math.log(high))))


class Site:
    def __init__(self, root, rng, small=False):
        self.root = os.path.join(root, "site")
        self.rng = rng
        self.small = small
        self.bytes = 0

    def write(self, path, data):
        full = os.path.join(self.root, path.lstrip("/"))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        if isinstance(data, str):
            data = data.encode("utf-8")
        with open(full, "wb") as handle:
            handle.write(data)
        self.bytes += len(data)

    def binary(self, path):
        """A binary file of a random size (content that no scanner finds references in)."""
        size = size_for(self.rng, self.small)
        self.write(path, self.rng.randbytes(size) if hasattr(self.rng, "randbytes") else os.urandom(size))

    def remove(self, path):
        full = os.path.join(self.root, path.lstrip("/"))
        self.bytes -= os.path.getsize(full)
        os.remove(full)

    def padded_text(self, path, text, comment):
        """A text file padded with a comment to a random size."""
        size = size_for(self.rng, self.small)
        filler = max(0, size - len(text))
        line = "x" * 100 + "\n"
        padding = comment[0] + (line * (filler // len(line) + 1))[:filler] + comment[1]
        self.write(path, text + padding)


def generate(root, pages, requisites, seed, common=False, small=False):
    rng = random.Random(seed)
    site = Site(root, rng, small)
    truth = set()

    # Shared stylesheets: an @import chain with images and a font, and a second sheet with images.
    shared_css = ["/css/base.css", "/css/theme.css", "/css/fonts.css", "/css/layout.css"]
    site.padded_text("/css/base.css",
                     '@import "theme.css";\nbody { background: url(../img/bg-base.png); }\n', ("/*", "*/\n"))
    site.padded_text("/css/theme.css",
                     ".theme { color: navy; }\n" if common else
                     "@import url('fonts.css');\n.theme { background-image: url(\"../img/bg-theme.jpg\"); }\n",
                     ("/*", "*/\n"))
    site.padded_text("/css/fonts.css",
                     '@font-face { font-family: "Body"; src: url(../fonts/body.woff2) format("woff2"), '
                     'url(../fonts/body.woff) format("woff"); }\n'
                     '@font-face { font-family: "Head"; src: url(/fonts/head.woff2) format("woff2"); }\n',
                     ("/*", "*/\n"))
    site.padded_text("/css/layout.css",
                     ".hero { background: url(/img/hero-bg.jpg) no-repeat; }\n"
                     ".icon { background: url('../img/sprite.png'); }\n", ("/*", "*/\n"))
    css_assets = ["/img/bg-base.png", "/img/bg-theme.jpg", "/fonts/body.woff2", "/fonts/body.woff",
                  "/fonts/head.woff2", "/img/hero-bg.jpg", "/img/sprite.png"]
    for path in css_assets:
        site.binary(path)
    shared_js = ["/js/vendor.js", "/js/app.mjs"]
    site.padded_text("/js/vendor.js", "window.vendor = {};\n", ("/*", "*/\n"))
    site.padded_text("/js/app.mjs", "export const app = true;\n", ("/*", "*/\n"))
    head_assets = ["/favicon.ico", "/img/apple-touch.png", "/fonts/preloaded.woff2"]
    for path in head_assets:
        site.binary(path)
    manifest_icons = ["/img/icon-192.png", "/img/icon-512.png"]
    for path in manifest_icons:
        site.binary(path)
    site.write("/site.webmanifest", json.dumps(
        {"name": "Bench", "icons": [{"src": "img/icon-192.png", "sizes": "192x192"},
                                    {"src": "/img/icon-512.png", "sizes": "512x512"}]}))
    # A widget every page frames, with requisites of its own, and what pages show without scripts
    # (written after the pages, so that the sizes drawn for everything else stay as they were).
    frame_assets = ["/frames/widget.html", "/frames/widget.css", "/img/widget.png", "/img/noscript.png"]
    fixed = (shared_css + css_assets + shared_js + head_assets + manifest_icons + ["/site.webmanifest"]
             + frame_assets)
    truth.update(fixed)

    # A shared pool of images; each page uses some of them and some of its own.
    pool = ["/img/shared-%03d.%s" % (index, rng.choice(["png", "jpg", "webp"]))
            for index in range(2 * requisites)]
    pool_written = set()
    page_paths = []
    for number in range(1, pages + 1):
        page = "/pages/page-%03d.html" % number
        page_paths.append(page)
        # K images: half from the shared pool, half the page's own.
        extra = requisites
        shared = rng.sample(pool, extra // 2)
        own = ["/img/p%03d-%02d.%s" % (number, index, rng.choice(["png", "jpg"]))
               for index in range(extra - extra // 2)]
        for path in shared:
            if path not in pool_written:
                site.binary(path)
                pool_written.add(path)
        for path in own:
            site.binary(path)
        truth.update(shared)
        truth.update(own)

        body = []
        images = shared + own
        # The first three images: srcset, picture/source, and a style attribute; the rest img src.
        body.append('<img src="%s" srcset="%s 1x, %s 2x" alt="">' % (images[0], images[0], images[1]))
        body.append('<picture><source srcset="%s" type="image/webp"><img src="%s" alt=""></picture>'
                    % (images[2], images[0]))
        body.append('<div style="background-image: url(\'%s\')">styled</div>' % images[3])
        for path in images[4:]:
            body.append('<img src="%s" alt="" loading="lazy">' % path)
        body.append('<iframe src="/frames/widget.html" title="widget"></iframe>')
        body.append('<noscript><img src="/img/noscript.png" alt=""></noscript>')
        head_links = "" if common else (
            '<link rel="icon" href="/favicon.ico">\n'
            '<link rel="apple-touch-icon" href="/img/apple-touch.png">\n'
            '<link rel="manifest" href="/site.webmanifest">\n')
        html = (
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Page %d</title>\n"
            '<link rel="stylesheet" href="../css/base.css">\n'
            '<link rel="stylesheet" href="/css/layout.css">\n'
            '<link rel="preload" href="/fonts/preloaded.woff2" as="font" type="font/woff2" crossorigin>\n'
            "%s"
            '<script src="/js/vendor.js" defer></script>\n'
            '<script type="module" src="../js/app.mjs"></script>\n'
            "<style>.block { background: url(%s); }</style>\n"
            "</head><body>\n<h1>Page %d</h1>\n%s\n"
            '<p><a href="page-%03d.html">next</a></p>\n'
            "</body></html>\n"
        ) % (number, head_links, images[4] if len(images) > 4 else images[0], number, "\n".join(body),
             number % pages + 1)
        site.padded_text(page, html, ("<!--", "-->\n"))

    site.padded_text("/frames/widget.html",
                     '<!DOCTYPE html>\n<html><head><link rel="stylesheet" href="widget.css"></head>\n'
                     '<body><img src="/img/widget.png" alt=""><a href="/pages/page-001.html">home</a></body></html>\n',
                     ("<!--", "-->\n"))
    site.padded_text("/frames/widget.css", ".widget { color: teal; }\n", ("/*", "*/\n"))
    site.binary("/img/widget.png")
    site.binary("/img/noscript.png")

    if common:
        unreferenced = ["/css/fonts.css", "/fonts/body.woff2", "/fonts/body.woff", "/fonts/head.woff2",
                        "/img/bg-theme.jpg", "/favicon.ico", "/img/apple-touch.png", "/site.webmanifest",
                        "/img/icon-192.png", "/img/icon-512.png"]
        for path in unreferenced:
            site.remove(path)
        truth.difference_update(unreferenced)

    with open(os.path.join(root, "urls.txt"), "w") as handle:
        handle.write("".join(path.lstrip("/") + "\n" for path in page_paths))
    with open(os.path.join(root, "truth.json"), "w") as handle:
        json.dump({"pages": page_paths, "requisites": sorted(truth), "bytes": site.bytes}, handle)
    return page_paths, truth, site.bytes


def main():
    parser = argparse.ArgumentParser(description="Generates a benchmark site with its ground truth.")
    parser.add_argument("root", help="the folder to write into (created if missing)")
    parser.add_argument("--pages", type=int, default=50, help="number of pages (default 50)")
    parser.add_argument("--requisites", type=int, default=20,
                        help="images per page besides the site-wide requisites (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--common", action="store_true",
                        help="only references wget2 --page-requisites follows too")
    parser.add_argument("--small", action="store_true", help="every file 1 KB to 8 KB")
    arguments = parser.parse_args()
    if arguments.pages < 1 or arguments.requisites < 4:
        sys.exit("generate-site.py: --pages must be at least 1 and --requisites at least 4.")
    os.makedirs(arguments.root, exist_ok=True)
    pages, truth, total = generate(arguments.root, arguments.pages, arguments.requisites, arguments.seed,
                                    arguments.common, arguments.small)
    print("%d pages, %d distinct requisites, %d bytes" % (len(pages), len(truth), total))


if __name__ == "__main__":
    main()
