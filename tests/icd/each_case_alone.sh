#!/usr/bin/env bash
# Runs every test case of a doctest suite in a process of its own, as a GPU
# machine's run does (one process per case): a case that passes only after
# another one ran (a driver table loaded by an earlier case, a runtime left
# initialised) fails here.
#   each_case_alone.sh <suite binary> [doctest options...]
set -u
suite=$1
shift
mapfile -t cases < <("$suite" --list-test-cases --no-version "$@" | grep -v '^\[doctest\]\|^=*$')
[ "${#cases[@]}" -gt 0 ] || { echo "each_case_alone: $suite lists no test case" >&2; exit 1; }
failed=0
for name in "${cases[@]}"; do
  # doctest's filters treat * ? [ ] , and \ specially: each becomes ?.
  pattern=$(printf '%s' "$name" | sed 's/[][*?,\\]/?/g')
  if ! output=$("$suite" "--test-case=$pattern" "$@" 2>&1); then
    echo "FAILED alone: $name"
    printf '%s\n' "$output" | tail -n 20
    failed=$((failed + 1))
  fi
done
echo "each_case_alone: ${#cases[@]} cases, $failed failed"
[ "$failed" -eq 0 ]
