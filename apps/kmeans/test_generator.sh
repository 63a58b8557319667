#!/usr/bin/env bash
# test_generator.sh GEN_DOCUMENTS KMEANS_SERIAL -- checks gen_documents:
#   - the same seed gives the same bytes, another seed other bytes;
#   - a row's content does not depend on how many rows follow it (each
#     1024-row block has its own random stream);
#   - --bytes sizes the file to within 5%, and the size printed is the size;
#   - it streams: a 128 MiB file under a 24 MiB address-space limit;
#   - what it writes passes the reader's checks (kmeans_serial runs on it).
set -u
gen=$1 kmeans=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/gen_documents_test.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "test_generator: FAIL: $*"; failures=$((failures + 1)); }
run() { echo "+ $*"; "$@" || fail "'$*' exited with $?"; }

run "$gen" --out "$dir/a" --rows 5000 --cols 3000 --seed 7
run "$gen" --out "$dir/b" --rows 5000 --cols 3000 --seed 7
run "$gen" --out "$dir/c" --rows 5000 --cols 3000 --seed 8
cmp "$dir/a" "$dir/b" || fail "seed 7 twice gave different files"
cmp -s "$dir/a" "$dir/c" && fail "seeds 7 and 8 gave the same file"

# 3000 rows are blocks 0-1 and most of block 2 of the 5000-row file: the
# entries of the smaller file must be the start of the larger one's.
run "$gen" --out "$dir/d" --rows 3000 --cols 3000 --seed 7
entries_d=$(($(stat -c %s "$dir/d") - 64 - 8 * 3001))
cmp -n "$entries_d" <(tail -c +$((64 + 8 * 5001 + 1)) "$dir/a") \
  <(tail -c +$((64 + 8 * 3001 + 1)) "$dir/d") ||
  fail "the first 3000 rows differ between a 3000- and a 5000-row file"

out=$("$gen" --out "$dir/e" --bytes 8m --seed 2) || fail "--bytes 8m failed"
echo "$out"
size=$(stat -c %s "$dir/e")
((size > 8 * 1048576 * 95 / 100 && size < 8 * 1048576 * 105 / 100)) ||
  fail "--bytes 8m wrote $size bytes"
[[ $out == *" $size bytes"* ]] || fail "it printed another size than $size"

echo "+ (ulimit -v 24576; $gen --out $dir/f --bytes 128m)"
(ulimit -v 24576 && "$gen" --out "$dir/f" --bytes 128m) ||
  fail "128 MiB under a 24 MiB address-space limit failed"
rm -f "$dir/f"

for f in a e; do
  "$kmeans" "$dir/$f" --iters 2 >/dev/null || fail "kmeans_serial rejects $f"
done

if ((failures)); then echo "test_generator: FAIL"; exit 1; fi
echo "test_generator: PASS"
