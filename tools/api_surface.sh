#!/usr/bin/env bash
# The library's API surface in three figures (issue 35), for a before/after
# note:
#   1. the public items rustdoc lists (nightly, --output-format json, all
#      features), by kind;
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
set -euo pipefail
root=$(cd "${1:-$(git rev-parse --show-toplevel)}" && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
cd "$root"
cargo +nightly rustdoc --quiet --manifest-path "$root/Cargo.toml" -p motion-viewer \
    --all-features --target-dir "$target" -- -Z unstable-options --output-format json
json="$target/doc/motion_viewer.json"

python3 - "$json" <<'EOF'
import json, sys, collections
doc = json.load(open(sys.argv[1]))
index = doc["index"]
skip = {"impl", "use", "struct_field", "variant"}
counts = collections.Counter()
by_module = collections.Counter()
for item in index.values():
    if item.get("crate_id") != 0 or item.get("visibility") != "public":
        continue
    kind = next(iter(item["inner"])) if isinstance(item["inner"], dict) else item["inner"]
    if kind in skip:
        continue
    counts[kind] += 1
    span = item.get("span") or {}
    where = span.get("filename", "?").split("src/", 1)[-1].split("/")[0].removesuffix(".rs")
    by_module[where] += 1
total = sum(counts.values())
print(f"public items (rustdoc JSON, all features): {total}")
for kind, n in counts.most_common():
    print(f"  {kind}: {n}")
print("by the source file or folder that defines them:")
print("  " + ", ".join(f"{m} {n}" for m, n in by_module.most_common()))
EOF

strings=$(find crates/motion-viewer/src -name '*.rs' ! -name 'tests.rs' ! -name '*_tests.rs' -print0 |
    xargs -0 perl -0777 -ne '
        s{//[^\n]*}{}g;
        while (/Result<((?:[^<>;{]|<(?:[^<>]|<[^<>]*>)*>)*?),\s*String\s*>/g) { print "$ARGV\n" }' |
    wc -l)
echo "Result<_, String> in library code: $strings"

if command -v duplicates >/dev/null; then
    echo "duplicates: $(duplicates --repo "$root" --seconds 120 | head -1)"
fi
