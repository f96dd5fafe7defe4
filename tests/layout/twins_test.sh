#!/usr/bin/env bash
# The tests mirror the code: every src/<module>/<name>.cpp has its twin, tests/<module>/<name>_test.cpp
# (docs/contributing/README.md), listed in tests/CMakeLists.txt so that it builds and runs; a
# source file without one is named in tests/layout/no_twin.txt with the reason it holds no decision
# of its own. A listed file that has a twin now, or is gone, must leave that list too.
# Usage: twins_test.sh SOURCE_DIR
set -euo pipefail
src=$1
cd "$src"
fail=0
declare -A exempt=() built=()
# The test files CMake builds: every *_test.cpp named in tests/CMakeLists.txt outside a comment.
while IFS= read -r name; do built[$name]=1; done < <(sed 's/#.*//' tests/CMakeLists.txt | grep -oE '[A-Za-z0-9_/]+_test\.cpp')
while IFS= read -r line; do
  line=${line#"${line%%[![:space:]]*}"}  # leading blanks
  [[ -z "$line" || "$line" == \#* ]] && continue
  file=${line%% *}
  [[ "$line" == *" — "* ]] || { echo "FAIL: no_twin.txt: '$file' gives no reason (FILE — why it holds no decision)"; fail=1; }
  exempt[$file]=1
done < tests/layout/no_twin.txt
count=0 twins=0
while IFS= read -r f; do
  rel=${f#src/}
  twin="tests/${rel%.cpp}_test.cpp"
  count=$((count + 1))
  if [[ -f "$twin" ]]; then
    twins=$((twins + 1))
    [[ -n "${built[${rel%.cpp}_test.cpp]:-}" ]] || { echo "FAIL: $twin is not built (not in tests/CMakeLists.txt)"; fail=1; }
    [[ -n "${exempt[$rel]:-}" ]] && { echo "FAIL: $rel has a twin now: take it out of tests/layout/no_twin.txt"; fail=1; }
  elif [[ -z "${exempt[$rel]:-}" ]]; then
    echo "FAIL: $rel has no test twin ($twin); write one, or say in tests/layout/no_twin.txt why it holds no decision"
    fail=1
  fi
done < <(find src -name '*.cpp' | sort)
for file in "${!exempt[@]}"; do
  [[ -f "src/$file" ]] || { echo "FAIL: tests/layout/no_twin.txt names src/$file, which is gone"; fail=1; }
done
[[ $count -gt 0 ]] || { echo "FAIL: no source file found under $src/src"; fail=1; }
echo "$twins of $count source files have a test twin; ${#exempt[@]} hold no decision of their own"
exit $fail
