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

failed=()
for target in "${targets[@]}"; do
	read -r pkg name <<<"$target"
	echo "--- $name ($pkg, $fuzztime)"
	if ! go test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimizetime" -parallel 1 "$pkg"; then
		failed+=("$name ($pkg)")
	fi
done

echo "${#targets[@]} fuzz targets ran for $fuzztime each."
if [ ${#failed[@]} -gt 0 ]; then
	printf 'failed: %s\n' "${failed[@]}" >&2
	exit 1
fi
