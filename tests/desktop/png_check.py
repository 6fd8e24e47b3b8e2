#!/usr/bin/env python3
"""png_check.py FILE [--min-colours N] [--width W --height H]

Decodes an 8-bit RGB/RGBA PNG with the standard library (zlib + the five PNG
filters) and checks that it has the expected size and at least N distinct
colours: a window that drew nothing, or one flat colour, fails.
"""
import argparse
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise ValueError("only 8-bit RGB or RGBA PNGs are handled")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--min-colours", type=int, default=20)
    ap.add_argument("--width", type=int)
    ap.add_argument("--height", type=int)
    a = ap.parse_args()
    w, h, bpp, rows = decode(a.file)
    if a.width and (w, h) != (a.width, a.height):
        print(f"{a.file}: {w}x{h}, expected {a.width}x{a.height}")
        return 1
    colours = {row[x:x + 3] for row in rows[::5] for x in range(0, w * bpp, 5 * bpp)}
    print(f"{a.file}: {w}x{h}, {len(colours)} distinct colours")
    return 0 if len(colours) >= a.min_colours else 1


if __name__ == "__main__":
    sys.exit(main())
