#!/bin/sh
# Builds the fuzz targets in _build-fuzz with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer (clang's includes float-cast-overflow), every
# library instrumented for coverage. Needs clang-14 and libclang-rt-14-dev.
#   tests/fuzz/build.sh && _build-fuzz/tests/fuzz/fuzz-project -max_total_time=300 CORPUS
set -eu
cd "$(dirname "$0")/../.."
CC=clang-14 CFLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
LDFLAGS="-fsanitize=address,undefined" \
  meson setup _build-fuzz -Dfuzzing=true -Dbuildtype=debugoptimized --reconfigure 2>/dev/null \
  || CC=clang-14 CFLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
     LDFLAGS="-fsanitize=address,undefined" \
     meson setup _build-fuzz -Dfuzzing=true -Dbuildtype=debugoptimized
ninja -C _build-fuzz tests/fuzz/fuzz-project tests/fuzz/fuzz-config
