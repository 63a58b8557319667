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
# shellcheck source=../test_lib.sh
. "$(dirname "$0")/../test_lib.sh"

check_seeds "$gen" --rows 5000 --cols 3000

# 3000 rows are blocks 0-1 and most of block 2 of the 5000-row file: the
# entries of the smaller file must be the start of the larger one's.
run "$gen" --out "$dir/d" --rows 3000 --cols 3000 --seed 7
entries_d=$(($(stat -c %s "$dir/d") - 64 - 8 * 3001))
cmp -n "$entries_d" <(tail -c +$((64 + 8 * 5001 + 1)) "$dir/a") \
  <(tail -c +$((64 + 8 * 3001 + 1)) "$dir/d") ||
  fail "the first 3000 rows differ between a 3000- and a 5000-row file"

check_sizing "$gen" 24576 128

for f in a e; do
  "$kmeans" "$dir/$f" --iters 2 >/dev/null || fail "kmeans_serial rejects $f"
done

finish test_generator
