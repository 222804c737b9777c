#!/usr/bin/env bash
# Licence check of the default build: every crate that `hekate`, `hekate-cli`, `hekate-gpu` and the
# Python extension `hekate-py` pull in
# with their default features (normal dependencies, not dev- or build-dependencies) must
# carry a permissive licence from the allow-list below, and no `tfhe-*` crate may appear
# (tfhe-fft's and tfhe-ntt's licence grants their patents for non-commercial use only).
#
# A licence expression passes if each `AND` term has at least one allowed `OR`
# alternative, e.g. `MIT OR Apache-2.0`, `(MIT OR Apache-2.0) AND Unicode-3.0`.
set -euo pipefail
cd "$(dirname "$0")/.."

allowed=" MIT Apache-2.0 BSD-2-Clause BSD-3-Clause ISC Unicode-3.0 Zlib CC0-1.0 MPL-2.0 "

# `{p}|{l}`: the package (name, version, annotations) and its licence expression, split
# at `|`; cargo appends ` (*)` to repeated entries.
tree=$(cargo tree -e normal --prefix none --format '{p}|{l}' -p hekate -p hekate-cli -p hekate-gpu -p hekate-py |
    sed -E 's/ \(\*\)$//' | sort -u)

status=0
while IFS= read -r line; do
    [ -z "$line" ] && continue
    name=${line%% *}
    licence=${line#*|}
    case "$name" in
    tfhe-*)
        echo "refused: $name is in the default dependency tree (patent grant for non-commercial use only)"
        status=1
        continue
        ;;
    esac
    if [ -z "$licence" ]; then
        echo "refused: $name has no licence expression"
        status=1
        continue
    fi
    # Normalise: drop parentheses, split on AND; each term needs one allowed alternative.
    # (`/` is the old cargo spelling of OR.)
    ok=1
    expr=$(sed -E 's/[()]//g; s# */ *# OR #g' <<<"$licence")
    IFS=$'\n' read -r -d '' -a terms < <(sed -E 's/ AND /\n/g' <<<"$expr"; printf '\0') || true
    for term in "${terms[@]}"; do
        term_ok=0
        IFS=$'\n' read -r -d '' -a alts < <(sed -E 's/ OR /\n/g' <<<"$term"; printf '\0') || true
        for alt in "${alts[@]}"; do
            alt=$(sed -E 's/^ +| +$//g' <<<"$alt")
            [ -n "$alt" ] && [[ "$allowed" == *" $alt "* ]] && term_ok=1
        done
        [ "$term_ok" = 1 ] || ok=0
    done
    if [ "$ok" = 0 ]; then
        echo "refused: $name: licence \"$licence\" is not in the allow-list"
        status=1
    fi
done <<<"$tree"

count=$(grep -c . <<<"$tree" || true)
if [ "$status" = 0 ]; then
    echo "licences: $count crates in the default build, all allowed, no tfhe-*"
fi
exit "$status"
