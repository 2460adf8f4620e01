#!/usr/bin/env python3
"""The library's layers and the imports that run up them (issue 44).

Each top module of crates/motion-viewer/src sits on a layer; a file may use
modules of its own layer and below. Prints, per file, every `crate::MODULE`
(or `motion_viewer::MODULE` in a doc example left out: code only) that names
a module on a higher layer, and the count. Comments, strings and test code
(`tests.rs`, `*_tests.rs`, `model_tests/`, `#[cfg(test)] mod … {`) are
left out.

Usage: tools/layers.py [CHECKOUT]        (default: this checkout)
"""
import os
import re
import sys

# Lowest first. The foundation (errors, text, budgets, the one writer) is
# used by every layer; the door (`open`, or `loaded` before it) sits with
# the modules that read tracks.
LAYERS = [
    {"error", "text", "budget", "output"},
    {"formats"},
    {"anim"},
    {"scene"},
    {"pose", "open", "loaded"},
    {"export", "curves", "workbench", "session", "summary", "fit", "physics", "synthetic"},
    {"gpu"},
    {"stage"},
    {"app"},
]
LAYER = {m: i for i, group in enumerate(LAYERS) for m in group}


def code_of(text):
    """The code without comments, string contents and inline test modules."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4]):
            m = re.match(r"'(\\.|[^\\'])'", text[i:i + 4])
            out.append("' '")
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    code = "".join(out)
    m = re.search(r"#\[cfg\(test\)\]\s*mod \w+\s*\{", code)
    return code[: m.start()] if m else code


def references(code):
    """(offset, top module) of every `crate::NAME` and of each name in a
    `crate::{A, B::c, …}` group."""
    for m in re.finditer(r"\bcrate::(\{|\w+)", code):
        if m.group(1) != "{":
            yield m.start(), m.group(1)
            continue
        depth, i, item_start = 1, m.end(), m.end()
        while i < len(code) and depth:
            c = code[i]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            if depth == 1 and c == "," or depth == 0:
                name = re.match(r"\s*(\w+)", code[item_start:i])
                if name:
                    yield m.start(), name.group(1)
                item_start = i + 1
            i += 1


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    src = os.path.join(root, "crates/motion-viewer/src")
    ups = []
    for dirpath, _, files in os.walk(src):
        rel_dir = os.path.relpath(dirpath, src)
        if "model_tests" in rel_dir.split(os.sep) or rel_dir.endswith("_tests"):
            continue
        for f in sorted(files):
            if not f.endswith(".rs") or f == "tests.rs" or f.endswith("_tests.rs"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, src)
            top = rel.split(os.sep)[0].removesuffix(".rs")
            if top not in LAYER:
                continue
            code = code_of(open(path, encoding="utf-8").read())
            for at, target in references(code):
                if target in LAYER and LAYER[target] > LAYER[top]:
                    line = code.count("\n", 0, at) + 1
                    ups.append((rel, line, top, target))
    for rel, line, top, target in ups:
        print(f"{rel}:{line}: {top} (layer {LAYER[top]}) uses {target} (layer {LAYER[target]})")
    print(f"imports that run up the layers: {len(ups)}")


if __name__ == "__main__":
    main()
