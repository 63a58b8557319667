#!/usr/bin/env bash
# compare_result.sh -- run an application and check its RESULT line against
# a reference, within a relative tolerance. Shared by the apps' tests and
# scripts/demo.sh.
#
# Usage:
#   compare_result.sh [options] -- CMD [ARGS...]
#
# Options:
#   --ref VALUE          the reference value
#   --ref-output FILE    the reference is the RESULT line in FILE (the saved
#                        stdout of a reference run, e.g. the serial program)
#   --tol REL            relative tolerance: pass if |value - ref| <= REL*|ref|
#                        (|value| <= REL when ref is 0); default 1e-9
#   --app NAME           only "RESULT NAME <value>" lines count (default: any)
#   --same REGEX         what the extended REGEX matches in CMD's stdout
#                        (grep -o: the matched text, not the whole line)
#                        must equal what it matches in --ref-output, in
#                        order (for what must agree exactly, e.g. counts)
#   --save-output FILE   also save CMD's stdout to FILE
#   -h, --help           print this text
#
# CMD must exit 0 and print a RESULT line; its last one is the value. With
# neither --ref nor --ref-output only that is checked (useful with
# --save-output to record a reference). CMD's output is printed, then one
# line per failed check and "compare_result: PASS" or "... FAIL".
# Exit status: 0 pass, 1 fail, 2 usage error.

set -u

usage() {
  sed -n '2,/^$/s/^# \{0,1\}//p' "$0"
  exit "${1:-2}"
}

ref="" ref_output="" tol=1e-9 app="" same="" save=""
while (($#)); do
  case "$1" in
    --ref) ref=${2?}; shift 2 ;;
    --ref-output) ref_output=${2?}; shift 2 ;;
    --tol) tol=${2?}; shift 2 ;;
    --app) app=${2?}; shift 2 ;;
    --same) same=${2?}; shift 2 ;;
    --save-output) save=${2?}; shift 2 ;;
    -h | --help) usage 0 ;;
    --) shift; break ;;
    *) echo "compare_result: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
(($#)) || { echo "compare_result: no command given after --" >&2; exit 2; }
[[ -z $same || -n $ref_output ]] ||
  { echo "compare_result: --same needs --ref-output" >&2; exit 2; }

number='[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?'
# The value of the last RESULT line of file $1 (empty if none).
result_of() {
  grep -E "^RESULT ${app:-[^ ]+} $number\$" "$1" | tail -n 1 | awk '{ print $3 }'
}

out=$(mktemp "${TMPDIR:-/tmp}/compare_result.XXXXXX") || exit 1
trap 'rm -f "$out" "$out.ref" "$out.run"' EXIT
"$@" >"$out"
rc=$?
cat "$out"
[[ -n $save ]] && cp "$out" "$save"

failures=()
((rc == 0)) || failures+=("'$*' exited with status $rc")
value=$(result_of "$out")
[[ -n $value ]] || failures+=("no RESULT${app:+ $app} line in the output of '$*'")

if [[ -n $ref_output ]]; then
  if [[ ! -r $ref_output ]]; then
    failures+=("cannot read the reference output $ref_output")
  else
    ref=$(result_of "$ref_output")
    [[ -n $ref ]] || failures+=("no RESULT${app:+ $app} line in $ref_output")
    if [[ -n $same ]]; then
      grep -oE -- "$same" "$ref_output" >"$out.ref"
      grep -oE -- "$same" "$out" >"$out.run"
      if [[ ! -s $out.ref ]]; then
        failures+=("nothing in $ref_output matches /$same/")
      elif ! diff "$out.ref" "$out.run" >/dev/null; then
        failures+=("/$same/ matches differently than in $ref_output (< reference, > run):"
          "$(diff "$out.ref" "$out.run" | head -20)")
      fi
    fi
  fi
fi

if [[ -n $value && -n $ref ]]; then
  verdict=$(awk -v v="$value" -v r="$ref" -v t="$tol" 'BEGIN {
    d = v - r; if (d < 0) d = -d
    s = r < 0 ? -r : r; if (s == 0) s = 1
    printf "%s %.3g", (d <= t * s ? "ok" : "off"), d / s
  }')
  echo "compare_result: RESULT $value, reference $ref, relative difference" \
    "${verdict#* } (tolerance $tol)"
  [[ $verdict == ok* ]] ||
    failures+=("RESULT $value differs from $ref by more than $tol relative")
fi

if ((${#failures[@]})); then
  for f in "${failures[@]}"; do echo "compare_result: FAIL: $f"; done
  echo "compare_result: FAIL"
  exit 1
fi
echo "compare_result: PASS"
exit 0
