#!/usr/bin/env python3
# check-layers.py: fail when a source file includes a header of a layer it may not use
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: check-layers.py SOURCE_ROOT
# The layers (src/DESIGN.md): core (C11 and libm) → service (GObject, json-glib, libsoup;
# never GTK) → ui (GTK and libadwaita; never a core header: it displays what the service
# computes) and cli (the service's results, printed; never GTK, never a core header:
# it sets project keys and prints what the estimator and planner computed).

import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.MULTILINE)

# System headers the core may use: the C11 library and nothing else.
C11_HEADERS = {
    'assert.h', 'ctype.h', 'errno.h', 'float.h', 'inttypes.h', 'limits.h', 'math.h',
    'stdarg.h', 'stdbool.h', 'stddef.h', 'stdint.h', 'stdio.h', 'stdlib.h', 'string.h',
}
GTK_PREFIXES = ('gtk/', 'gdk/', 'gsk/', 'adwaita.h', 'graphene')


def headers_in(root, layer):
    return {p.name for p in (root / 'src' / layer).rglob('*.h')}


def faults(root):
    core = headers_in(root, 'core')
    service = headers_in(root, 'service')
    ui = headers_in(root, 'ui')
    cli = headers_in(root, 'cli')
    rules = {
        # layer: (headers of ours it may not include, whether GTK is allowed)
        'core': (service | ui | cli, False),
        'service': (ui | cli, False),
        'ui': (core | cli, True),
        'cli': (core | ui, False),
    }
    for layer, (forbidden, gtk_allowed) in rules.items():
        for path in sorted((root / 'src' / layer).rglob('*.[ch]')):
            text = path.read_text(encoding='utf-8', errors='replace')
            for kind, name in INCLUDE.findall(text):
                where = path.relative_to(root)
                base = name.split('/')[-1]
                if kind == '"' and base in forbidden:
                    yield f'{where}: includes "{name}" from a layer {layer} may not use'
                elif kind == '<' and layer == 'core' and name not in C11_HEADERS:
                    yield f'{where}: includes <{name}>; the core is C11 and libm only'
                elif kind == '<' and not gtk_allowed and name.startswith(GTK_PREFIXES):
                    yield f'{where}: includes <{name}>; {layer} never uses GTK'


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    found = list(faults(root))
    for line in found:
        print(line)
    print(f'{len(found)} layering faults' if found else 'layers: no fault')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
