#!/usr/bin/env bash
# `make install`'s rules into a temporary prefix: the binary runs --version, the man page renders,
# bash completes a subcommand and an option from the generated script, then uninstall leaves nothing.
# Usage: install_test.sh BUILD_DIR
set -euo pipefail
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/ouro share/man/man1/ouro.1 share/bash-completion/completions/ouro share/zsh/site-functions/_ouro \
         share/fish/vendor_completions.d/ouro.fish; do
  [[ -f $prefix/$f ]] || fail "$f was not installed"
done

version=$("$prefix/bin/ouro" --version)
[[ $version =~ ^ouro\ [0-9]+\.[0-9]+\.[0-9]+\ \((unknown|[0-9a-f]{7,}(-dirty)?)\)$ ]] || fail "--version printed '$version'"
echo "ok: $version"

if command -v man >/dev/null; then
  page=$(MANWIDTH=100 man -l "$prefix/share/man/man1/ouro.1" 2>&1 | col -b)
  warnings=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$prefix/share/man/man1/ouro.1" 2>&1 || true)
  [[ -z $warnings ]] || fail "groff warns about the man page: $warnings"
  for want in "NAME" "ouro - a browser you can script" "ouro exec" "--allow-domain" "SHARED OPTIONS" "ENVIRONMENT"; do
    grep -qF -- "$want" <<<"$page" || fail "the man page lacks '$want'"
  done
  echo "ok: man -l renders $(wc -l <<<"$page") lines"
else
  echo "skip: man is not installed" >&2
fi

complete_words() {  # complete_words WORD… : what the installed bash completion offers for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ouro; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$prefix/share/bash-completion/completions/ouro" "$@"
}
got=$(complete_words ouro sch)
[[ $got == schedule ]] || fail "ouro sch<TAB> gave '$got'"
got=$(complete_words ouro schedule a)
[[ $got == add ]] || fail "ouro schedule a<TAB> gave '$got'"
got=$(complete_words ouro run --max-it)
[[ $got == --max-iterations ]] || fail "ouro run --max-it<TAB> gave '$got'"
got=$(complete_words ouro run --url https://example.com --mode a)
[[ $got == autonomous ]] || fail "ouro run --mode a<TAB> gave '$got'"
got=$(complete_words ouro --url x exe)
[[ -z $got || $got == exec ]] || fail "ouro --url x exe<TAB> gave '$got'"
# Every subcommand `ouro --help` lists is offered.
listed=$("$prefix/bin/ouro" --help | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1}' | sort)
offered=$(complete_words ouro "" | sort)
[[ -n $listed && $listed == "$offered" ]] || fail "completion offers '$offered' where --help lists '$listed'"
echo "ok: bash completion"
if command -v zsh >/dev/null; then zsh -n "$prefix/share/zsh/site-functions/_ouro" || fail "zsh cannot parse _ouro"; fi
if command -v fish >/dev/null; then fish -n "$prefix/share/fish/vendor_completions.d/ouro.fish" || fail "fish cannot parse ouro.fish"; fi

cmake -DPREFIX="$prefix" -P "$build/uninstall.cmake" >/dev/null
left=$(find "$prefix" -mindepth 1)
[[ -z $left ]] || fail "uninstall left: $left"
echo "ok: uninstall left nothing"
