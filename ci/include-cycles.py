#!/usr/bin/env python3
"""Fails when folders of src/ include each other in a cycle.

An `#include "a/x.h"` in a file under src/b/ is an edge b -> a (a and b both
folders of src/). Generated headers ("gen/x.h", in the build tree) are not a
folder of src/ and are left out: every folder may use the codec they declare,
which needs only protocol/codec.h. Prints every strongly connected group of
two or more folders with the includes that make its edges, and exits 1; exits
0 when the folder graph is acyclic. --dot prints the graph in Graphviz form instead.
"""
import os
import re
import sys

INCLUDE = re.compile(r'\s*#\s*include\s+"([a-z_]+)/([^"]+)"')


def edges(src):
    graph = {}
    for root, _, files in os.walk(src):
        parts = os.path.relpath(root, src).split(os.sep)
        if parts[0] == '.':
            continue
        for name in files:
            if not name.endswith(('.c', '.h')):
                continue
            path = os.path.join(root, name)
            with open(path, errors='replace') as f:
                for line in f:
                    m = INCLUDE.match(line)
                    if m and m.group(1) != parts[0] and os.path.isdir(os.path.join(src, m.group(1))):
                        graph.setdefault(parts[0], {}).setdefault(m.group(1), []).append(
                            '%s -> %s/%s' % (os.path.relpath(path, src), m.group(1), m.group(2)))
    return graph


def components(graph):
    """Tarjan's strongly connected components."""
    index, low, stack, on, out = {}, {}, [], set(), []
    nodes = set(graph) | {b for a in graph for b in graph[a]}

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return [c for c in out if len(c) > 1]


def main():
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'src')
    graph = edges(src)
    if '--dot' in sys.argv[1:]:
        print('digraph src {')
        for a in sorted(graph):
            for b in sorted(graph[a]):
                print('  "%s" -> "%s" [label=%d];' % (a, b, len(graph[a][b])))
        print('}')
        return 0
    cycles = components(graph)
    for comp in cycles:
        print('include cycle between src/ folders: %s' % ' '.join(comp))
        for a in comp:
            for b in sorted(graph.get(a, {})):
                if b in comp:
                    for why in sorted(graph[a][b]):
                        print('  %s' % why)
    if not cycles:
        print('src/ folders: no include cycle')
    return 1 if cycles else 0


if __name__ == '__main__':
    sys.exit(main())
