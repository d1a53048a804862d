#!/usr/bin/env python3
# check-potfiles.py: fail when a source file with translatable strings is missing from po/POTFILES.in
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: check-potfiles.py SOURCE_ROOT
# Wants src/**/*.c using _( N_( C_( NC_(, src/**/*.ui with translatable="yes", and every
# desktop entry, metainfo and schema in data/ (translatable by their ITS rules); also fails
# on POTFILES.in entries that no longer exist.

import pathlib
import re
import sys

C_MARKERS = re.compile(r'(?<![A-Za-z0-9_])(?:N?C?_)\s*\(')
UI_MARKER = re.compile(r'translatable\s*=\s*"(?:yes|true|1)"')


def needs_translation(path):
    text = path.read_text(encoding='utf-8', errors='replace')
    if path.suffix == '.c':
        return C_MARKERS.search(text) is not None
    return UI_MARKER.search(text) is not None


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    listed = set()
    for line in (root / 'po' / 'POTFILES.in').read_text(encoding='utf-8').splitlines():
        line = line.strip()
        if line and not line.startswith('#'):
            listed.add(line)

    candidates = list((root / 'src').rglob('*.c')) + list((root / 'src').rglob('*.ui'))
    wanted = {str(p.relative_to(root)) for p in candidates if needs_translation(p)}
    for pattern in ('*.desktop.in*', '*.metainfo.xml.in*', '*.gschema.xml'):
        wanted |= {str(p.relative_to(root)) for p in (root / 'data').glob(pattern)}

    missing = sorted(wanted - listed)
    stale = sorted(p for p in listed if not (root / p).is_file())
    for p in missing:
        print(f'not in po/POTFILES.in but has translatable strings: {p}')
    for p in stale:
        print(f'listed in po/POTFILES.in but does not exist: {p}')
    return 1 if missing or stale else 0


if __name__ == '__main__':
    sys.exit(main())
