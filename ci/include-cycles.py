#!/usr/bin/env python3
"""Folder-level include cycles in src/.

Every folder of src/ is a node. `#include "a/x.h"` in a file anywhere under
src/b/ is an edge b -> a when a and b are both folders of src/ and differ
(includes without a folder, such as the generated "codec_registry.h", or of
a folder that is not in src/, are not edges). A cycle is a strongly
connected component of more than one folder; for each one this prints its
edges and, for each edge, the files and lines that create it, which are
the includes to remove to break it.

Prints the edges, then the cycles. Exit status: 1 if there is any cycle,
0 if none, 2 on a usage error.
  --dot   print the graph in Graphviz DOT instead (edges labelled with how
          many includes make them, edges inside a cycle in red); same exit
          status.
  --src   the source tree (default: src/ beside this script's ci/).
"""

import argparse
import os
import re
import signal
import sys
from collections import defaultdict

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*["<]([^">]+)[">]', re.M)
# Literals are matched too, so that "/*" or "//" inside one starts no comment.
TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*', re.S)


def strip_comments(text):
    """Blanks comments, keeping newlines so line numbers stay right."""

    def blank(m):
        t = m.group(0)
        return re.sub(r"[^\n]", " ", t) if t.startswith("/") else t

    return TOKEN.sub(blank, text)


def scan(src):
    """{(from, to): [(path, line, header)]} over the .c and .h files of src."""
    folders = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    known = set(folders)
    edges = defaultdict(list)
    for folder in folders:
        for root, dirs, files in os.walk(os.path.join(src, folder)):
            dirs.sort()
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(root, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = strip_comments(f.read())
                for m in INCLUDE.finditer(text):
                    header = m.group(1)
                    target = header.split("/", 1)[0] if "/" in header else None
                    if target in known and target != folder:
                        line = text.count("\n", 0, m.start()) + 1
                        edges[(folder, target)].append((path, line, header))
    return folders, edges


def components(nodes, edges):
    """Strongly connected components (Tarjan), each sorted; all sizes."""
    succ = defaultdict(list)
    for a, b in sorted(edges):
        succ[a].append(b)
    index, low, on_stack, stack, out = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    return sorted(out)


def print_dot(nodes, edges, in_cycle):
    print("digraph includes {")
    print("  rankdir=LR;")
    print("  node [shape=box];")
    for n in nodes:
        print(f'  "{n}";')
    for (a, b), sites in sorted(edges.items()):
        attrs = f'label="{len(sites)}"'
        if (a, b) in in_cycle:
            attrs += ", color=red, fontcolor=red"
        print(f'  "{a}" -> "{b}" [{attrs}];')
    print("}")


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into head
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dot", action="store_true", help="print the graph in DOT")
    ap.add_argument("--src", default=os.path.join(here, "..", "src"), help="source tree")
    args = ap.parse_args()
    if not os.path.isdir(args.src):
        print(f"include-cycles: {args.src}: not a directory", file=sys.stderr)
        return 2
    src = os.path.normpath(args.src)
    nodes, edges = scan(src)
    cycles = [c for c in components(nodes, edges) if len(c) > 1]
    in_cycle = set()
    for c in cycles:
        members = set(c)
        in_cycle.update(e for e in edges if e[0] in members and e[1] in members)

    if args.dot:
        print_dot(nodes, edges, in_cycle)
        return 1 if cycles else 0

    rel = lambda p: os.path.relpath(p, os.path.dirname(src))
    print(f"include edges between the folders of {rel(src)}/ (includes making each):")
    for (a, b), sites in sorted(edges.items()):
        print(f"  {a} -> {b} ({len(sites)})")
    if not cycles:
        print("no cycles")
        return 0
    print(f"{len(cycles)} cycle(s):")
    for i, c in enumerate(cycles, 1):
        print(f"cycle {i}: {' '.join(c)}")
        for e in sorted(e for e in in_cycle if e[0] in c):
            print(f"  {e[0]} -> {e[1]}")
            for path, line, header in edges[e]:
                print(f'    {rel(path)}:{line}: #include "{header}"')
    return 1


if __name__ == "__main__":
    sys.exit(main())
