#!/bin/bash
# Compare two trees made by scripts/refbuild.sh, file by file (build records excluded): names each
# file that differs, then the files only one side has, then the counts.
#   usage: scripts/cmp_outputs.sh REF NEW
t=$(mktemp -d)
cd "$1" || exit 1; n=0; d=0
for f in $(find . -type f ! -name .pnp-build.json | sort); do
  n=$((n+1)); if ! cmp -s "$f" "$2/$f"; then echo "DIFF $f"; d=$((d+1)); fi
done
(cd "$2" && find . -type f ! -name .pnp-build.json | sort) > "$t/b.lst"; find . -type f ! -name .pnp-build.json | sort > "$t/a.lst"
diff "$t/a.lst" "$t/b.lst"
echo "$n files compared, $d differ"; rm -rf "$t"
