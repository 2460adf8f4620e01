#!/usr/bin/env bash
# The library's API surface in three figures (issue 35), for a before/after
# note:
#   1. the public items rustdoc lists (nightly, --output-format json), by
#      kind: with the library's default features (the issue's count) and
#      with all of them (gpu, window, synthetic, fit, physics);
#   2. `Result<_, String>` in library code (crates/motion-viewer/src, test
#      files left out), signatures spread over lines included;
#   3. the `duplicates` tool's first line (pairs of repeated places).
#
# Usage: tools/api_surface.sh [CHECKOUT]   (default: this checkout)
# Needs: nightly Rust, python3; `duplicates` if installed (else skipped).
#
# Counting rule for (1): every item of the crate in rustdoc's index whose
# visibility is `public` and which is not an `impl` block, a `use` (a
# re-export) or a field/variant of an item, counted once per id. Methods
# in inherent impls count (they are `public`); trait-impl methods do not
# (their visibility is `default`). A re-export adds no item: the item it
# names is counted where it is defined, if rustdoc lists it.
#
# Figures (issue 35), this script:
#   118474b (25 Nov, when the issue was filed): default features 869
#     (536 fn, 129 struct, 84 const, 70 mod, 40 enum, 6 type, 2 assoc
#     const, 2 trait: the issue's "867 … 536 functions and methods, 129
#     structs, 84 constants, 70 modules, 40 enums"); all features 996;
#     Result<_, String> 23; duplicates 138 pairs (308 files).
#   5e118b1 (26 Nov, fit and physics merged): default 989, all 1178;
#     Result<_, String> 25; duplicates 187 pairs (360 files).
#   0a01509 (first part of issue 35 merged): all 944 (971 with the
#     simulation's types merged beside it); Result<_, String> 0.
#   b27e4ba (second part merged): default 425 (234 fn, 98 struct, 38 mod,
#     36 enum, 11 const, 4 type, 2 assoc const, 2 trait); all 581 (312 fn,
#     147 struct, 48 enum, 45 mod, 17 const, 5 type, 4 assoc const,
#     3 trait); Result<_, String> 0.
set -euo pipefail
root=$(cd "${1:-$(git rev-parse --show-toplevel)}" && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
cd "$root"

count() {
    local label=$1
    shift
    cargo +nightly rustdoc --quiet --manifest-path "$root/Cargo.toml" -p motion-viewer \
        "$@" --target-dir "$target" -- -Z unstable-options --output-format json
    python3 - "$target/doc/motion_viewer.json" "$label" <<'EOF'
import json, sys, collections
doc = json.load(open(sys.argv[1]))
skip = {"impl", "use", "struct_field", "variant"}
counts = collections.Counter()
by_module = collections.Counter()
for item in doc["index"].values():
    if item.get("crate_id") != 0 or item.get("visibility") != "public":
        continue
    kind = next(iter(item["inner"])) if isinstance(item["inner"], dict) else item["inner"]
    if kind in skip:
        continue
    counts[kind] += 1
    span = item.get("span") or {}
    where = span.get("filename", "?").split("src/", 1)[-1].split("/")[0].removesuffix(".rs")
    by_module[where] += 1
print(f"public items (rustdoc JSON, {sys.argv[2]}): {sum(counts.values())}")
print("  " + ", ".join(f"{kind} {n}" for kind, n in counts.most_common()))
print("  by where they are defined: "
      + ", ".join(f"{m} {n}" for m, n in by_module.most_common()))
EOF
}
count "default features"
count "all features" --all-features

strings=$(find crates/motion-viewer/src -name '*.rs' ! -name 'tests.rs' ! -name '*_tests.rs' -print0 |
    xargs -0 perl -0777 -ne '
        s{//[^\n]*}{}g;
        while (/Result<((?:[^<>;{]|<(?:[^<>]|<[^<>]*>)*>)*?),\s*String\s*>/g) { print "$ARGV\n" }' |
    wc -l)
echo "Result<_, String> in library code: $strings"

if command -v duplicates >/dev/null; then
    echo "duplicates: $(duplicates --repo "$root" --seconds 120 | head -1)"
fi
