#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks that tools/gen_codec.py rejects bad schemas and accepts a good one.

Usage: gen_codec_test.py --generator tools/gen_codec.py --cc CC --include SRC_DIR

Each tests/gen/bad/<case>.gp opens with `# expect: [<line>:] <text>`: the
generator must exit non-zero and print one "file:line: message" naming that
file (and line) and containing text, so a schema error is reported where it
is, in words a schema author can act on. Each tests/gen/good/*.gp must be
accepted, and its output must compile with -Wall -Wextra -Werror: a schema
the generator accepts but whose C does not build is a generator bug too.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECT = re.compile(r"# expect: (?:(\d+): )?(.+)")


def run(generator, out, schemas):
    return subprocess.run([sys.executable, generator, "--out", out] + schemas,
                          capture_output=True, text=True)


def check_bad(generator, path, tmp):
    with open(path, encoding="utf-8") as f:
        m = EXPECT.fullmatch(f.readline().rstrip("\n"))
    if not m:
        return "%s: first line must be '# expect: [<line>:] <text>'" % path
    line, text = m.groups()
    res = run(generator, os.path.join(tmp, "bad"), [path])
    where = "%s:%s: " % (path, line) if line else "%s:" % path
    if res.returncode == 0:
        return "%s: accepted, expected an error containing %r" % (path, text)
    if "Traceback" in res.stderr:
        return "%s: the generator crashed instead of reporting:\n%s" % (path, res.stderr)
    msg = res.stderr.strip()
    if msg.count("\n") or where not in msg or text not in msg:
        return "%s: expected one error at %r containing %r, got:\n  %s" % (path, where, text, msg)
    return None


def check_good(generator, path, tmp, cc, include):
    out = os.path.join(tmp, "good", "gen")
    res = run(generator, out, [path])
    if res.returncode != 0:
        return "%s: rejected:\n  %s" % (path, res.stderr.strip())
    stem = os.path.splitext(os.path.basename(path))[0]
    for name in (stem + ".c", "codec_registry.c"):
        cmd = [cc, "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
               "-I", include, "-I", os.path.dirname(out), os.path.join(out, name)]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            return "%s: generated %s does not compile:\n%s" % (path, name, res.stderr)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--generator", required=True)
    ap.add_argument("--cc", required=True)
    ap.add_argument("--include", required=True, help="the src/ directory")
    args = ap.parse_args()
    bad = sorted(glob.glob(os.path.join(HERE, "bad", "*.gp")))
    good = sorted(glob.glob(os.path.join(HERE, "good", "*.gp")))
    if not bad or not good:
        print("no schemas under %s/bad or %s/good" % (HERE, HERE))
        return 1
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in bad:
            failures.append(check_bad(args.generator, path, tmp))
        for path in good:
            failures.append(check_good(args.generator, path, tmp, args.cc, args.include))
    failures = [f for f in failures if f]
    for f in failures:
        print("FAIL " + f)
    print("%d bad schemas rejected, %d good accepted, %d failures"
          % (len(bad), len(good), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
