#!/bin/bash
# Build every bundled game in five modes, plus exports, a preview, the calibration sheet and the
# check/preflight/list texts, with the pnp source in SRC, into DEST: a set of reference outputs
# to compare two versions byte for byte (scripts/cmp_outputs.sh).
#   usage: scripts/refbuild.sh SRC DEST     (PY=python to use; default: python3)
set -e
S=$(cd "$1" && pwd); D=$2; rm -rf "$D"; mkdir -p "$D"; D=$(cd "$D" && pwd)
export PYTHONPATH=$S
p() { ${PY:-python3} -m pnp "$@"; }
cd /tmp  # outside any data root: the bundled games of SRC
p build --out "$D/default" --jobs 1 >/dev/null
p build --out "$D/fold" --duplex fold --jobs 1 >/dev/null
p build --out "$D/ink" --ink-saver --paper universal --jobs 1 >/dev/null
p build --out "$D/a4" --paper a4 --duplex short --token-cut circle --back-offset 1.5,-2 --jobs 1 >/dev/null
p build --out "$D/opp" --one-per-page --jobs 1 >/dev/null
p check > "$D/check.txt" 2>&1 || true
p preflight --json > "$D/preflight.json" 2>/dev/null || true
p export png golems --out "$D/exp" --dpi 72 >/dev/null
p export tts cyberiad --out "$D/exp" --dpi 72 >/dev/null
p preview cauldron omens --out "$D/exp" --dpi 72 >/dev/null
p calibrate --out "$D/exp" >/dev/null
p list > "$D/list.txt"
find "$D" -type f | wc -l
