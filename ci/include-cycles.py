#!/usr/bin/env python3
"""Fails when folders of src/ include each other out of their layer order,
or in a cycle.

The order is GR_LAYERS in CMakeLists.txt (lowest first; the build links each
folder with only the folders before it), with admin/ (the CLI, built apart)
on top. A folder may include only folders before it, and every folder of
src/ must be in the order.

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


LAYERS = re.compile(r'set\(GR_LAYERS\s+([^)]*)\)')
TOP = ['admin']


def layer_order(root):
    """The folders in layer order, lowest first, from CMakeLists.txt."""
    with open(os.path.join(root, 'CMakeLists.txt')) as f:
        m = LAYERS.search(f.read())
    if not m:
        return None
    return m.group(1).split() + TOP


def order_violations(graph, order, src):
    """Lines naming every folder outside the order and every include upward."""
    rank = {name: i for i, name in enumerate(order)}
    out = []
    for name in sorted(os.listdir(src)):
        if os.path.isdir(os.path.join(src, name)) and name not in rank:
            out.append('src/%s/ is not in GR_LAYERS (CMakeLists.txt)' % name)
    for a in sorted(graph):
        for b in sorted(graph[a]):
            if a in rank and b in rank and rank[b] > rank[a]:
                out.append('src/%s/ includes src/%s/, which is above it:' % (a, b))
                out.extend('  %s' % why for why in sorted(graph[a][b]))
    return out


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    src = os.path.join(root, 'src')
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
    order = layer_order(root)
    violations = order_violations(graph, order, src) if order else ['no GR_LAYERS in CMakeLists.txt']
    for line in violations:
        print(line)
    if not cycles and not violations:
        print('src/ folders: includes follow the layer order (%s)' % ' < '.join(order))
    return 1 if cycles or violations else 0


if __name__ == '__main__':
    sys.exit(main())
