#!/usr/bin/env python3
# check-flatpak.py: the Flatpak manifest is valid JSON and agrees with the meson build
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: check-flatpak.py MANIFEST MESON_OPTIONS_TXT APP_ID_DEVEL
# Checks the id against the development profile's application id, that the app module
# builds the source tree with meson, and that each -D option it passes is declared.

import json
import re
import sys


def main():
    manifest_path, options_path, devel_id = sys.argv[1:4]
    with open(manifest_path, encoding='utf-8') as f:
        manifest = json.load(f)
    with open(options_path, encoding='utf-8') as f:
        declared = set(re.findall(r"option\(\s*'([^']+)'", f.read()))

    problems = []
    if manifest.get('id') != devel_id:
        problems.append(f"id is {manifest.get('id')!r}, the development profile is {devel_id!r}")
    if manifest.get('command') != 'headroom':
        problems.append(f"command is {manifest.get('command')!r}, not 'headroom'")
    app = manifest['modules'][-1]
    if app.get('buildsystem') != 'meson':
        problems.append('the last module is not built with meson')
    if {'type': 'dir', 'path': '..'} not in app.get('sources', []):
        problems.append('the last module does not build the source tree (dir "..")')
    opts = app.get('config-opts', [])
    if '-Ddevelopment=true' not in opts:
        problems.append('the app module does not pass -Ddevelopment=true')
    for opt in opts:
        name = re.match(r'-D([^=]+)=', opt)
        if name and name.group(1) not in declared and not name.group(1).startswith('b_'):
            problems.append(f'{opt}: no such option in meson_options.txt')

    for p in problems:
        print(f'{manifest_path}: {p}')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
