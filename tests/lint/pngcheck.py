#!/usr/bin/env python3
"""Checks that a PNG screenshot shows a rendered page, not a blank one (standard library only).

usage: pngcheck.py FILE.png [--need-color RRGGBB ...]

Decodes the PNG (8-bit greyscale, RGB or RGBA, not interlaced: what Chromium writes), then
requires that at least 2% of the pixels are not background (white) and that the picture has
at least 8 distinct colours; each --need-color must appear (within a small tolerance) on at
least 20 pixels. Prints a one-line verdict; exits 0 when the checks pass, 1 when not.
"""
import struct
import sys
import zlib


def decode(path):
    """Returns (width, height, channels, rows) with rows a list of bytes objects."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + n
    width, height, depth, ctype, _, _, interlace = ihdr
    channels = {0: 1, 2: 3, 6: 4}.get(ctype)
    if depth != 8 or channels is None or interlace:
        raise ValueError("unsupported PNG (depth %d, colour type %d, interlace %d)" % (depth, ctype, interlace))
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        ftype, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xFF
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xFF
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def check(path, need_colors=()):
    width, height, channels, rows = decode(path)
    colours, inked = {}, 0
    for line in rows:
        for x in range(0, len(line), channels):
            px = tuple(line[x:x + 3]) if channels >= 3 else (line[x],) * 3
            colours[px] = colours.get(px, 0) + 1
            if min(px) < 235:
                inked += 1
    total = width * height
    problems = []
    if inked < total * 0.02:
        problems.append("only %.2f%% of the pixels are not background" % (100.0 * inked / total))
    if len(colours) < 8:
        problems.append("only %d distinct colours" % len(colours))
    for hexcol in need_colors:
        want = tuple(int(hexcol[i:i + 2], 16) for i in (0, 2, 4))
        n = sum(cnt for px, cnt in colours.items() if all(abs(px[k] - want[k]) <= 24 for k in range(3)))
        if n < 20:
            problems.append("colour #%s appears on %d pixels" % (hexcol, n))
    return "%dx%d, %d colours, %.1f%% inked" % (width, height, len(colours), 100.0 * inked / total), problems


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    need = [a.lstrip("#") for i, a in enumerate(argv[2:]) if argv[1 + i] == "--need-color"]
    summary, problems = check(argv[1], need)
    print("%s: %s%s" % (argv[1], summary, "; " + "; ".join(problems) if problems else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
