# bench/lib/rep_stats.sh -- the figures of repeated runs, kept by the
# calling script in the associative array T (KEY -> seconds per op, one
# per repetition, space-separated).

# median of the repetitions, "min-max" spread
stats() {
  tr ' ' '\n' <<<"${T[$1]:-}" | awk 'NF' | sort -g |
    awk '{ v[NR] = $1 } END { if (NR) printf "%.9g %.9g %.9g\n", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
median() { stats "$1" | cut -d' ' -f1; }

# row LABEL KEY REF_KEY : the median, its spread, and the ratio to REF_KEY's median
row() {
  local label=$1 key=$2 ref=$3 s r
  s=$(stats "$key"); r=$(median "$ref")
  awk -v l="$label" -v s="$s" -v r="$r" 'BEGIN {
      split(s, v, " ")
      if (s == "") { printf "%-34s %12s\n", l, "failed"; exit }
      ratio = (r != "" && r > 0) ? sprintf("%.2f", v[1] / r) : "n/a"
      printf "%-34s %9.2f us  (%.2f-%.2f)  %7s\n", l, v[1] * 1e6, v[2] * 1e6, v[3] * 1e6, ratio
    }'
}
