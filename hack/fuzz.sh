#!/usr/bin/env bash
# Runs every fuzz target of the module (every func FuzzX(f *testing.F) in a plain _test.go
# file), one after the other, each for FUZZTIME with one worker: the machine is shared.
# Plain `go test` runs only their seed corpora; this is where they search.
#
#   hack/fuzz.sh                    every target for FUZZTIME (default 5s)
#   FUZZTIME=5m hack/fuzz.sh        the long run
#   hack/fuzz.sh ./adapter/...      the targets of some packages only
#
# A failing input is written to testdata/fuzz/<FuzzX>/ beside the target (go test does
# it): commit it as a seed together with the fix. The script runs every target and fails
# at the end, naming the targets that failed.
set -euo pipefail

fuzztime=${FUZZTIME:-5s}
# Go minimizes every input that finds new coverage, not only failing ones. A minimization
# bounded in time can outlast a short run, and go test then fails the target with "context
# deadline exceeded" and no failing input; bounded in executions it ends at once. A failing
# input is reported either way, less minimized.
minimizetime=${FUZZMINIMIZETIME:-100x}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
packages=("${@:-./...}")

# `go test -list` prints a package's matching tests, then "ok  <package>  <time>"; it fails
# when a package does not build.
listed=$(go test -list '^Fuzz' "${packages[@]}")
targets=()
names=()
while read -r first second _; do
	case $first in
	Fuzz*) names+=("$first") ;;
	ok)
		for name in "${names[@]}"; do targets+=("$second $name"); done
		names=()
		;;
	*) names=() ;;
	esac
done <<<"$listed"

if [ ${#targets[@]} -eq 0 ]; then
	echo "no fuzz targets in ${packages[*]}" >&2
	exit 1
fi

# corpus lists the failing inputs go test has written for a target (testdata/fuzz/<FuzzX>/
# in the target's package directory).
corpus() {
	local dir
	dir=$(go list -f '{{.Dir}}' "$1")/testdata/fuzz/$2
	[ -d "$dir" ] && ls "$dir" || true
}

failed=()
raced=()
for target in "${targets[@]}"; do
	read -r pkg name <<<"$target"
	echo "--- $name ($pkg, $fuzztime)"
	before=$(corpus "$pkg" "$name")
	out=$(mktemp)
	if go test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimizetime" -parallel 1 "$pkg" 2>&1 | tee "$out"; then
		rm -f "$out"
		continue
	fi
	# Go 1.26's fuzzing coordinator can report its own -fuzztime deadline as a failure
	# ("context deadline exceeded") when a worker is mid-input as time runs out
	# (golang/go#75804, fixed in Go 1.27). A real failure always writes its input
	# beside the target; such a deadline without a new input is not one.
	if grep -q 'context deadline exceeded' "$out" && [ "$(corpus "$pkg" "$name")" = "$before" ]; then
		raced+=("$name ($pkg)")
	else
		failed+=("$name ($pkg)")
	fi
	rm -f "$out"
done
if [ ${#raced[@]} -gt 0 ]; then
	printf 'ended by the fuzzing coordinator'"'"'s deadline with no failing input (not a failure): %s\n' "${raced[@]}"
fi

echo "${#targets[@]} fuzz targets ran for $fuzztime each."
if [ ${#failed[@]} -gt 0 ]; then
	printf 'failed: %s\n' "${failed[@]}" >&2
	exit 1
fi
