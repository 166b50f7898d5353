#!/usr/bin/env python3
"""Compares two PNG screenshots pixel by pixel, with the standard library alone.

Usage: same_pixels.py EXPECTED.png ACTUAL.png ACTUAL-NAME EXPECTED-NAME
Prints "PASS: ACTUAL-NAME is pixel-identical to EXPECTED-NAME (WxH)" and exits 0, or prints why not
(size, or how many pixels differ) and exits 1.
"""
import struct, sys, zlib

def pixels(path):
    """Decodes an 8-bit, non-interlaced PNG into (width, height, bytes per pixel, rows)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    offset, idat, header = 8, b"", None
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        chunk = data[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        offset += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and interlace == 0, f"{path}: unsupported PNG layout"
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[color]
    raw, stride, rows, previous = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if kind == 1: line[x] = (line[x] + left) & 0xFF
            elif kind == 2: line[x] = (line[x] + up) & 0xFF
            elif kind == 3: line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows

expected, actual = pixels(sys.argv[1]), pixels(sys.argv[2])
actual_name, expected_name = sys.argv[3], sys.argv[4]
if expected[:3] != actual[:3]:
    sys.exit(f"FAIL: the screenshots differ in size: {expected[:3]} vs {actual[:3]}")
width, height, channels = expected[:3]
different = sum(
    1 for a, b in zip(expected[3], actual[3]) for x in range(0, len(a), channels) if a[x:x + channels] != b[x:x + channels])
if different:
    sys.exit(f"FAIL: {different} of {width * height} pixels differ between {actual_name} and {expected_name}")
print(f"PASS: {actual_name} is pixel-identical to {expected_name} ({width}x{height})")
