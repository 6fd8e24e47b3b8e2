#!/usr/bin/python3
"""pack_embed.py: attnviz-embed.{js,wasm} + the page's glue + subset fonts → one JS file.

    pack_embed.py --root SRC --module build/wasm-embed/site/attnviz-embed.js \\
                  --out build/wasm-embed/embed/attnviz-embed.js [--fonts-dir DIR] [--sizes sizes.json]

The file (docs/ui.md, "Embedded views") is web/embed/attnviz-embed-boot.js called with
one string: a little archive (a 4-byte header length, a JSON header naming each part and
its size, the parts one after the other) deflated as one raw-deflate stream and written
in base 85 over an alphabet without quotes, backslash, <, >, &, $, ` and /, so it needs no
escaping in a JS string, in JSON or inside a <script> element. The parts:
  attnviz-embed.wasm, attnviz-embed.js   the module (tree build/wasm-embed, -Oz)
  glue.js        web/site/attnviz-{lang,glue,export,weights,share}.js, as the page has them
  regular.ttf, mono.ttf   DejaVu Sans and Sans Mono cut to the ranges the app draws from
                 them (ui/app/widgets/fonts.cpp, kBaseRanges), without hinting
  cjk.ttf        Droid Sans Fallback cut to the most common simplified hanzi (the first
                 --cjk-common of GB2312 by their frequency in modern Chinese: Unihan's
                 kHanyuPinlu counts, from Debian's unicode-data), CJK punctuation,
                 full-width forms, and every CJK character of the interface's and the
                 engine's text
                 (all of GB2312 level 1, 3755 hanzi, would be 319 KB deflated: a third of
                 the budget on its own)
The Latin fonts keep printable ASCII, Latin-1, Greek, and every other character of that
text (math signs, arrows, quotes, dashes), plus a few signs a learner may type.
Prints the size of each part (raw, deflated alone) and the encoding's overhead, and
writes them to --sizes as JSON. Needs Debian's python3-fonttools (/usr/bin/python3).
"""
import argparse
import bz2
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

from fontTools import subset as ft_subset
from fontTools.ttLib import TTFont

FONTS = {
    'regular.ttf': '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
    'mono.ttf': '/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf',
    'cjk.ttf': '/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf',
}
GLUE = ['attnviz-lang.js', 'attnviz-glue.js', 'attnviz-export.js', 'attnviz-weights.js', 'attnviz-share.js']
# No ", ', \, <, >, &, $, ` or /: 85 of the 94 printable ASCII characters.
ALPHABET = ''.join(c for c in map(chr, range(0x21, 0x7F)) if c not in '"\'\\<>&$`/')
assert len(ALPHABET) == 85
# = kBaseRanges in ui/app/widgets/fonts.cpp: what the atlas takes from the Latin fonts.
BASE_RANGES = [(0x20, 0xFF), (0x370, 0x3FF), (0x1D00, 0x1D7F), (0x2000, 0x206F), (0x2190, 0x21FF),
               (0x2200, 0x22FF), (0x25A0, 0x25FF)]
# Where the interface's words are: the Chinese catalogue, the page's sentences, the
# presets and the engine's refusals (CJK characters found there join the CJK font).
TEXT_SOURCES = ['ui/app', 'engine/src', 'web/site', 'web/embed', 'assets/presets']
# ... but not the lessons' (the embed build has none: ATTNVIZ_NO_LESSONS).
TEXT_SKIPPED = ['ui/app/text/lang_zh_cn_lessons.cpp']


def encode85(data):
    pad = (-len(data)) % 4
    data = data + b'\0' * pad
    out = []
    a = ALPHABET
    for (v,) in struct.iter_unpack('>I', data):
        d4 = v % 85; v //= 85
        d3 = v % 85; v //= 85
        d2 = v % 85; v //= 85
        d1 = v % 85; v //= 85
        out.append(a[v] + a[d1] + a[d2] + a[d3] + a[d4])
    return ''.join(out)


def is_cjk(c):
    o = ord(c)
    return (0x2E80 <= o <= 0x9FFF) or (0xF900 <= o <= 0xFAFF) or (0xFF00 <= o <= 0xFFEF) or (0x3000 <= o <= 0x303F)


def source_chars(root):
    chars = set()
    for top in TEXT_SOURCES:
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if os.path.relpath(os.path.join(dirpath, n), root) in TEXT_SKIPPED:
                    continue
                if n.endswith(('.cpp', '.h', '.js', '.json')):
                    with open(os.path.join(dirpath, n), encoding='utf-8', errors='ignore') as f:
                        chars.update(f.read())
    return chars


UNIHAN_READINGS = '/usr/share/unicode/Unihan_Readings.txt.bz2'  # Debian's unicode-data
# Signs beyond the interface's own text that a learner may type in a token or read in a
# formula (the Latin fonts keep these too).
EXTRA_SIGNS = '←↑→↓↔⇒⇔∀∂∃∅∇∈∉∏∑−∓∗∘√∝∞∧∨∩∪∫≈≠≡≤≥⊂⊃⊆⊇⊕⊗⊙⊤⋅⌈⌉⌊⌋■□▲△▶▷▼▽◀◁●○•′″‰€™ᵀ⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻₀₁₂₃₄₅₆₇₈₉'


def common_hanzi(n):
    """The n most frequent simplified hanzi: Unihan's kHanyuPinlu counts (the Xiandai Hanyu
    Pinlu Cidian's frequencies, summed over a character's readings), GB2312 characters only."""
    freq = {}
    with bz2.open(UNIHAN_READINGS, 'rt', encoding='utf-8') as f:
        for line in f:
            if '\tkHanyuPinlu\t' not in line:
                continue
            cp, _, value = line.rstrip('\n').split('\t')
            c = chr(int(cp[2:], 16))
            try:
                c.encode('gb2312')
            except UnicodeEncodeError:
                continue
            freq[c] = sum(int(x) for x in re.findall(r'\((\d+)\)', value))
    return set(sorted(freq, key=lambda c: (-freq[c], c))[:n])


def quantize_outlines(font, step):
    """Rounds every outline point to a multiple of `step` font units. Droid Sans Fallback
    has 256 units to the em: step 2 is 1/128 em, an eighth of a pixel in 16 px text (a
    quarter at twice the pixel ratio), and makes the hanzi's outlines deflate 9% smaller."""
    glyf = font['glyf']
    for name in font.getGlyphOrder():
        g = glyf[name]
        if g.numberOfContours > 0:
            c = g.coordinates
            for i in range(len(c)):
                x, y = c[i]
                c[i] = (round(x / step) * step, round(y / step) * step)
            g.recalcBounds(glyf)


def subset_font(src, codepoints, out, quantize=1):
    opts = ft_subset.Options()
    opts.hinting = False           # ImGui's stb_truetype does not hint
    opts.layout_features = []      # nor shape: no GSUB/GPOS needed
    opts.name_IDs = [0, 1, 2]      # the licence notice and the family names stay
    opts.notdef_outline = True
    opts.drop_tables += ['FFTM', 'vhea', 'vmtx', 'GDEF', 'GPOS', 'GSUB', 'gasp', 'LTSH', 'VDMX', 'hdmx']
    font = ft_subset.load_font(src, opts)
    sub = ft_subset.Subsetter(opts)
    sub.populate(unicodes=sorted(codepoints))
    sub.subset(font)
    if quantize > 1:
        quantize_outlines(font, quantize)
    ft_subset.save_font(font, out, opts)


def fonts(root, cache_dir, cjk_common):
    """The three subset fonts (bytes by part name); cached in cache_dir by their inputs."""
    text = source_chars(root)
    base = set(range(0x20, 0x7F)) | set(range(0xA0, 0x100)) | set(range(0x370, 0x400))
    base |= {ord(c) for c in text | set(EXTRA_SIGNS) if ord(c) >= 0x100 and not is_cjk(c)}
    base &= {cp for a, b in BASE_RANGES for cp in range(a, b + 1)}  # what the atlas takes from them
    cjk = {ord(c) for c in common_hanzi(cjk_common) | {c for c in text if is_cjk(c)}}
    cjk |= set(range(0x3000, 0x3040)) | set(range(0xFF01, 0xFF5F))  # CJK punctuation, fullwidth forms
    wanted = {'regular.ttf': base, 'mono.ttf': base, 'cjk.ttf': cjk}
    out = {}
    os.makedirs(cache_dir, exist_ok=True)
    for name, src in FONTS.items():
        quantize = 2 if name == 'cjk.ttf' else 1
        key = hashlib.sha256((src + str(os.path.getmtime(src)) + str(quantize) + ','.join(map(str, sorted(wanted[name]))))
                             .encode()).hexdigest()[:16]
        path = os.path.join(cache_dir, name.replace('.ttf', '-' + key + '.ttf'))
        if not os.path.exists(path):
            subset_font(src, wanted[name], path + '.tmp', quantize)
            os.replace(path + '.tmp', path)
        with open(path, 'rb') as f:
            out[name] = f.read()
    return out


def strip_comments(js):
    """JS without its whole-line // comments and blank lines (the sources keep them; the file
    is shipped in every notebook output). Only whole lines: nothing inside code is touched."""
    return '\n'.join(l.rstrip() for l in js.split('\n') if l.strip() and not l.lstrip().startswith('//')) + '\n'


BANNER = ('// attnviz-embed.js {version}: attnviz, the attention visualizer, as embeddable views '
          '(attnvizEmbed.mount; docs/ui.md, "Embedded views"). Made by scripts/pack_embed.py. '
          'Fonts inside: DejaVu Sans and Sans Mono (Bitstream Vera licence), Droid Sans Fallback '
          '(Apache License 2.0), subset.\n')


def deflate(data):
    """Raw deflate: Debian's zopfli (5% smaller than zlib's best, 37 KB here; about 7 s),
    or zlib level 9 when it is not installed."""
    if shutil.which('zopfli'):
        with tempfile.NamedTemporaryFile() as f:
            f.write(data)
            f.flush()
            out = subprocess.run(['zopfli', '--deflate', '--i15', '-c', f.name], check=True, stdout=subprocess.PIPE).stdout
        if zlib.decompressobj(-15).decompress(out) == data:
            return out
    print('pack_embed.py: zopfli is not installed (Debian package zopfli): zlib -9 instead', file=sys.stderr)
    co = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    return co.compress(data) + co.flush()


def read(path, mode='rb'):
    with open(path, mode) as f:
        return f.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--root', required=True, help='the source tree')
    ap.add_argument('--module', required=True, help='attnviz-embed.js (its .wasm beside it)')
    ap.add_argument('--out', required=True)
    ap.add_argument('--fonts-dir', help='cache for the subset fonts (default: beside --out)')
    ap.add_argument('--sizes', help='write the size breakdown here (JSON)')
    ap.add_argument('--max-bytes', type=int, default=1 << 20, help='fail when the file is larger (default 1 MiB)')
    ap.add_argument('--cjk-common', type=int, default=1500, help='how many of the most common hanzi the CJK font keeps')
    a = ap.parse_args()

    glue = ''.join(strip_comments(read(os.path.join(a.root, 'web/site', n), 'r')) for n in GLUE)
    parts = {
        'attnviz-embed.wasm': read(re.sub(r'\.js$', '.wasm', a.module)),
        'attnviz-embed.js': read(a.module),
        'glue.js': glue.encode('utf-8'),
    }
    parts.update(fonts(a.root, a.fonts_dir or os.path.join(os.path.dirname(a.out), 'fonts'), a.cjk_common))

    head = json.dumps({'files': [{'name': k, 'size': len(v)} for k, v in parts.items()]}).encode()
    archive = struct.pack('<I', len(head)) + head + b''.join(parts.values())
    packed = deflate(archive)
    payload = encode85(packed)
    version = hashlib.sha256(archive).hexdigest()[:16]

    boot = strip_comments(read(os.path.join(a.root, 'web/embed/attnviz-embed-boot.js'), 'r')).rstrip()
    assert boot.endswith('})'), 'attnviz-embed-boot.js must end with the function expression'
    text = BANNER.format(version=version) + boot + '("' + payload + '",' + str(len(packed)) + ',"' + version + '");\n'
    for bad in ('</script', '<!--'):
        assert bad not in text.lower(), 'the packed file would contain ' + bad
    data = text.encode('utf-8')
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out + '.tmp', 'wb') as f:
        f.write(data)
    os.replace(a.out + '.tmp', a.out)

    def deflated(b):
        c = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
        return len(c.compress(b) + c.flush())
    sizes = {
        'file': len(data), 'version': version,
        'parts': {k: {'raw': len(v), 'deflated_alone': deflated(v)} for k, v in parts.items()},
        'archive_raw': len(archive), 'deflated': len(packed),
        'base85_overhead': len(payload) - len(packed),
        'boot_js': len(boot.encode('utf-8')),
    }
    print(f'{a.out}: {len(data)} bytes ({len(data) / 1048576:.3f} MiB, limit {a.max_bytes})')
    for k, v in sizes['parts'].items():
        print(f'  {k:20s} {v["raw"]:>9d} raw  {v["deflated_alone"]:>8d} zlib-deflated alone')
    print(f'  {"all parts":20s} {len(archive):>9d} raw  {len(packed):>8d} deflated together (zopfli)')
    print(f'  base-85 text overhead {sizes["base85_overhead"]} bytes; boot code {sizes["boot_js"]} bytes')
    if a.sizes:
        with open(a.sizes, 'w') as f:
            json.dump(sizes, f, indent=1)
    if len(data) > a.max_bytes:
        print(f'pack_embed.py: {a.out} is {len(data)} bytes, over the limit of {a.max_bytes}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
