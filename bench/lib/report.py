# SPDX-License-Identifier: Apache-2.0
"""The benchmark report: one text table (Markdown, so docs/performance.md can take it
as is), the same rows as JSON, and PNG charts drawn by gnuplot."""
import json
import os
import shutil
import subprocess


def fmt(v):
    if v is None:
        return "-"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def cell(s):
    if not s:
        return "-"
    if s["runs"] == 1:
        return fmt(s["median"])
    return f"{fmt(s['median'])} ({fmt(s['min'])}–{fmt(s['max'])})"


def verdict(r):
    if r["met"] is None:
        return r["target"] or ""
    return f"{r['target']}: {'met' if r['met'] else 'MISSED'}"


def table(rows):
    """Markdown table: median (min–max) of the runs; ratio = Gregor/mock."""
    out = ["| scenario | measure | unit | Gregor | mock | Gregor/mock | target |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        name = r["name"] + (f" ({r['note']})" if r.get("note") else "")
        ratio = fmt(r["ratio"]) if r["ratio"] is not None else "-"
        out.append(f"| {r['scenario']} | {name} | {r['unit']} | {cell(r['gregor'])} | "
                   f"{cell(r['mock'])} | {ratio} | {verdict(r)} |")
    return "\n".join(out)


def write_json(path, meta, rows):
    with open(path, "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)


GNUPLOT_HEAD = """set terminal pngcairo size 1000,{height} font ",10"
set output "{png}"
set title "{title}"
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.8 border -1
set key top right
set grid ytics
set ylabel "{unit}"
set xtics rotate by -25 noenhanced
set yrange [0:*]
"""


def chart(out_dir, scenario, rows):
    """One bar chart per scenario and unit: Gregor beside the mock, with the
    min–max of the runs as error bars. Returns the PNG paths written."""
    pngs = []
    by_unit = {}
    for r in rows:
        if r["scenario"] == scenario and r["gregor"]:
            by_unit.setdefault(r["unit"], []).append(r)
    for i, (unit, rs) in enumerate(by_unit.items()):
        stem = f"{scenario}-{i}"
        dat = os.path.join(out_dir, stem + ".dat")
        png = os.path.join(out_dir, stem + ".png")
        with open(dat, "w") as f:
            for r in rs:
                g = r["gregor"]
                m = r["mock"] or {"median": 0, "min": 0, "max": 0}
                label = r["name"].replace('"', "'")
                f.write(f'"{label}" {g["median"]} {g["min"]} {g["max"]} '
                        f'{m["median"]} {m["min"]} {m["max"]}\n')
        gp = GNUPLOT_HEAD.format(png=png, title=f"{scenario}: {unit}", unit=unit,
                                 height=500)
        values = [v for r in rs for v in (r["gregor"]["min"], (r["mock"] or {}).get("min"))
                  if v and v > 0]
        if values and max(values) / min(values) > 100:  # Gregor and mock orders apart
            gp += "set logscale y\nset yrange [*:*]\n"
        gp += (f'plot "{dat}" using 2:3:4:xtic(1) title "Gregor" lc rgb "#2a6f97", '
               f'"" using 5:6:7 title "librdkafka mock" lc rgb "#bbbbbb"\n')
        res = subprocess.run(["gnuplot"], input=gp.encode(), stderr=subprocess.PIPE)
        if res.returncode == 0:
            pngs.append(png)
        else:
            print(f"bench: gnuplot failed for {stem}: {res.stderr.decode().strip()}")
    return pngs


def charts(out_dir, rows):
    if not shutil.which("gnuplot"):
        print("bench: gnuplot not installed (ci/install-bench-deps.sh): no charts")
        return []
    pngs = []
    for scenario in dict.fromkeys(r["scenario"] for r in rows):
        pngs += chart(out_dir, scenario, rows)
    return pngs
