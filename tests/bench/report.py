#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the BENCH lines of `make bench` into a markdown table, CSVs and a chart.

report.py --meta FILE --out STEM [--latest FILE] TOPO-hostN.txt...

Writes STEM.md, STEM.csv (one row per point and metric: min/median/max per
provider, ratio, target, met), STEM-raw.csv (every run) and STEM.png (ratios
as improvement factors). --latest also copies the markdown there.
The input lines come from tests/bench/bench-guest.sh (see its header).
"""
import argparse
import csv
import os
import shutil
import statistics
import sys

PROVIDERS = ("rxe", "sroce")
TOPOLOGIES = ("loopback", "link")
# Display order of the points (name/size), as bench-guest.sh runs them.
POINT_ORDER = [f"{t}_bw/{s}" for t in ("write", "read", "send")
               for s in (64, 4096, 65536, 1048576)] + ["msg_rate/8"] + \
    [f"{t}_lat/{s}" for t in ("write", "send", "read") for s in (8, 4096)] + ["atomic_lat/8"] + \
    ["nvmf_randread_qd1/4096", "nvmf_randread_qd32/4096", "nvmf_seqread/131072"]
BIG_MESSAGES = ("65536", "1048576")


def parse_kv(tokens):
    return dict(t.split("=", 1) for t in tokens if "=" in t)


def read_meta(path):
    meta = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("=")
            if key:
                meta[key] = value
    return meta


def read_lines(paths):
    """BENCH run records, guest descriptions and memcpy figures of all hosts."""
    runs, guests, memcpy = [], [], []
    for path in paths:
        topo = os.path.basename(path).split("-host")[0]
        with open(path) as f:
            for line in f:
                tokens = line.split()
                if not tokens:
                    continue
                kv = parse_kv(tokens[1:])
                if tokens[0] == "BENCH" and {"provider", "rep", "point", "side", "status"} <= kv.keys():
                    runs.append(kv)
                elif tokens[0] == "BENCH-GUEST":
                    guests.append(dict(kv, topo=topo))
                elif tokens[0] == "BENCH-MEMCPY" and "median" in kv:
                    memcpy.append(dict(kv, topo=topo))
                else:
                    print(f"report: ignoring malformed line: {line.strip()[:100]}", file=sys.stderr)
    return runs, guests, memcpy


def number(value):
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if x == x else None  # NaN -> None


def merge_sides(runs):
    """One record per (topo, provider, rep, point): the measuring side's
    metrics (guest or client) plus the server's CPU figures."""
    merged = {}
    for r in runs:
        key = (r["topo"], r["provider"], r["rep"], r["point"])
        rec = merged.setdefault(key, {"status": "ok", "why": ""})
        if r["side"] == "server":
            for k in ("cpu_busy", "cpu_kern"):
                if k in r:
                    rec[k + "_server"] = r[k]
        else:
            rec.update({k: v for k, v in r.items() if k not in ("status", "why")})
        if r["status"] != "ok" and rec["status"] == "ok":
            rec["status"], rec["why"] = r["status"], f"{r['side']}:{r.get('why', '?')}"
    return merged


class Samples:
    """The repeats of one point and metric on one provider."""

    def __init__(self):
        self.values, self.failures = [], []

    def add(self, rec, metric):
        x = number(rec.get(metric))
        if rec["status"] == "ok" and x is not None:
            self.values.append(x)
        else:
            self.failures.append(rec.get("why") or rec["status"])

    @property
    def median(self):
        return statistics.median(self.values) if self.values else None

    @property
    def spread(self):
        """(max - min) / median in %: how far apart the repeats were."""
        m = self.median
        if not m or len(self.values) < 2:
            return None
        return 100.0 * (max(self.values) - min(self.values)) / m


def metrics_of(point):
    """(metric, label, unit, higher_is_better) rows a point contributes."""
    name = point.split("/")[0]
    if name == "nvmf_seqread":
        return [("bw", "", "MiB/s", True)]
    if name.startswith("nvmf_"):
        return [("iops", "", "IOPS", True), ("lat_avg", "average", "µs", False),
                ("lat_p99", "p99", "µs", False)]
    if name == "msg_rate":
        return [("mpps", "", "Mmsg/s", True)]
    if name.endswith("_bw"):
        return [("bw", "", "MiB/s", True)]
    return [("lat_typ", "typical", "µs", False), ("lat_p99", "p99", "µs", False)]


def target_of(topo, point, metric):
    """(operator, value, text) from issue 5 (NVMe-oF: issue 16), or None for
    a point without one."""
    name, size = point.split("/")
    if name.startswith("nvmf_"):
        if metric in ("iops", "bw"):
            return (">=", 3.0, "≥3×")
        return ("<=", 0.5, "≤0.5×") if metric == "lat_p99" else None
    if name.endswith("_bw") and name != "msg_rate" and size in BIG_MESSAGES:
        return (">=", 5.0, "≥5×") if topo == "loopback" else (">=", 2.0, "≥2×")
    if name == "msg_rate":
        return (">=", 5.0, "≥5×")
    if name.endswith("_lat") and size == "8":
        return ("<=", 0.5, "≤0.5×") if metric == "lat_typ" else ("<=", 1.0, "≤1× (no worse tail)")
    return None


def is_met(target, ratio):
    if target is None or ratio is None:
        return None
    op, value, _ = target
    return ratio >= value if op == ">=" else ratio <= value


def fmt(x):
    """Three significant digits, no exponent for the usual ranges."""
    if x is None:
        return "—"
    if x == 0:
        return "0"
    if abs(x) >= 100:
        return f"{x:.0f}"
    if abs(x) >= 0.001:
        return f"{x:.3g}"
    return f"{x:.2e}"


def size_text(size):
    if size >= 1 << 20:
        return f"{size >> 20} MiB"
    if size >= 1 << 10:
        return f"{size >> 10} KiB"
    return f"{size} B"


def label_of(point):
    name, size = point.split("/")
    if name == "msg_rate":
        return "msg_rate 8 B write (4 QPs, TX depth 256)"
    if name.startswith("nvmf_randread"):
        return f"NVMe-oF fio 4 KiB random read, QD {name.rsplit('qd', 1)[1]}"
    if name == "nvmf_seqread":
        return "NVMe-oF fio 128 KiB sequential read, QD 8"
    return f"{name} {size_text(int(size))}"


class Row:
    def __init__(self, topo, point, metric, label, unit, higher, samples):
        self.topo, self.point, self.metric = topo, point, metric
        self.label, self.unit, self.higher = label, unit, higher
        self.rxe, self.sroce = samples["rxe"], samples["sroce"]
        a, b = self.rxe.median, self.sroce.median
        self.ratio = b / a if a and b is not None else None
        self.target = target_of(topo, point, metric)
        self.met = is_met(self.target, self.ratio)

    @property
    def factor(self):
        """Improvement factor, higher is better whatever the metric."""
        if not self.ratio:
            return None
        return self.ratio if self.higher else 1.0 / self.ratio


def build_rows(merged):
    rows = []
    points = {(k[0], k[3]) for k in merged}
    order = {p: i for i, p in enumerate(POINT_ORDER)}
    for topo in TOPOLOGIES:
        for point in sorted((p for t, p in points if t == topo), key=lambda p: order.get(p, 99)):
            for metric, label, unit, higher in metrics_of(point):
                samples = {p: Samples() for p in PROVIDERS}
                for (t, prov, _rep, pt), rec in sorted(merged.items()):
                    if t == topo and pt == point and prov in samples:
                        samples[prov].add(rec, metric)
                rows.append(Row(topo, point, metric, f"{label_of(point)} {label}".strip(), unit,
                                higher, samples))
    return rows


def cell(s, reps):
    if not s.values:
        why = sorted(set(s.failures))
        if why and all("time-budget" in w or "server-skip" in w for w in why):
            return "not run (time budget)"
        return "FAIL" + (f" ({', '.join(why)[:40]})" if why else "") if s.failures else "—"
    text = fmt(s.median)
    if len(s.values) < reps or s.failures:
        text += f" ({len(s.values)}/{len(s.values) + len(s.failures)})"
    return text


def spread_cell(row):
    def one(s):
        return "—" if s.spread is None else f"{s.spread:.0f}%"
    return f"{one(row.rxe)} / {one(row.sroce)}"


def met_cell(row):
    if row.target is None:
        return ""
    return {True: "yes", False: "**no**", None: "n/a"}[row.met]


def results_table(rows, topo, reps):
    out = ["| point | unit | rxe | sroce | sroce/rxe | target | met? | spread rxe / sroce |",
           "|---|---|---:|---:|---:|---|---|---|"]
    for r in rows:
        if r.topo != topo:
            continue
        out.append(f"| {r.label} | {r.unit} | {cell(r.rxe, reps)} | {cell(r.sroce, reps)} | "
                   f"{fmt(r.ratio)} | {r.target[2] if r.target else ''} | {met_cell(r)} | "
                   f"{spread_cell(r)} |")
    return out


def cpu_cell(merged, topo, provider, point, suffix):
    busy, kern = Samples(), Samples()
    for (t, prov, _rep, pt), rec in merged.items():
        if t == topo and prov == provider and pt == point:
            busy.add(rec, "cpu_busy" + suffix)
            kern.add(rec, "cpu_kern" + suffix)
    if busy.median is None:
        return "—"
    return f"{busy.median:.0f} / {fmt(kern.median)}"


def cpu_table(merged, topo):
    points = sorted({k[3] for k in merged if k[0] == topo},
                    key=lambda p: POINT_ORDER.index(p) if p in POINT_ORDER else 99)
    if topo == "loopback":
        out = ["| point | rxe guest | sroce guest |", "|---|---:|---:|"]
        for p in points:
            out.append(f"| {label_of(p)} | {cpu_cell(merged, topo, 'rxe', p, '')} | "
                       f"{cpu_cell(merged, topo, 'sroce', p, '')} |")
    else:
        out = ["| point | rxe client | rxe server | sroce client | sroce server |",
               "|---|---:|---:|---:|---:|"]
        for p in points:
            out.append(f"| {label_of(p)} | {cpu_cell(merged, topo, 'rxe', p, '')} | "
                       f"{cpu_cell(merged, topo, 'rxe', p, '_server')} | "
                       f"{cpu_cell(merged, topo, 'sroce', p, '')} | "
                       f"{cpu_cell(merged, topo, 'sroce', p, '_server')} |")
    return out


def memcpy_by_size(memcpy, topo):
    by_size = {}
    for m in memcpy:
        if m["topo"] == topo and number(m.get("median")) is not None:
            by_size.setdefault(int(m["size"]), []).append(float(m["median"]))
    return {size: statistics.median(v) for size, v in by_size.items()}


def memcpy_section(rows, memcpy):
    """The guest's memcpy bandwidth and loopback bandwidth as a fraction of it."""
    out = []
    loop = memcpy_by_size(memcpy, "loopback")
    if not loop:
        return out
    figures = ", ".join(f"{fmt(v)} MiB/s with {size_text(s)} buffers"
                        for s, v in sorted(loop.items()))
    out += [f"Guest memcpy (glibc, median of 9 trials, measured at the start and end of the "
            f"loopback run): {figures}.", ""]
    ref = loop.get(1 << 20) or next(iter(loop.values()))
    compared = [r for r in rows if r.topo == "loopback" and r.metric == "bw"
                and r.point.split("/")[1] in BIG_MESSAGES]
    if not compared:
        return out
    out += ["Target: loopback bandwidth within 50% of memcpy (1 MiB buffers), i.e. fraction ≥ 0.5.", "",
            "| point | rxe MiB/s | rxe / memcpy | sroce MiB/s | sroce / memcpy | met? |",
            "|---|---:|---:|---:|---:|---|"]
    for r in compared:
        a, b = r.rxe.median, r.sroce.median
        fa = a / ref if a is not None else None
        fb = b / ref if b is not None else None
        met = "n/a" if fb is None else ("yes" if fb >= 0.5 else "**no**")
        out.append(f"| {r.label} | {fmt(a)} | {fmt(fa)} | {fmt(b)} | {fmt(fb)} | {met} |")
    return out + [""]


def summary(rows):
    groups = {}
    for r in rows:
        if r.target is None:
            continue
        name = r.point.split("/")[0]
        kind = ("NVMe-oF " + ("IOPS" if r.metric == "iops" else "bandwidth" if r.metric == "bw"
                              else "p99 latency") if name.startswith("nvmf_")
                else "bandwidth" if name.endswith("_bw") else "message rate" if name == "msg_rate"
                else "latency " + ("typical" if r.metric == "lat_typ" else "p99"))
        g = groups.setdefault((r.topo, kind, r.target[2]), [0, 0, 0])
        g[0 if r.met else 1 if r.met is False else 2] += 1
    out = ["| topology | what | target | met | not met | no data |", "|---|---|---|---:|---:|---:|"]
    for (topo, kind, text), (yes, no, na) in groups.items():
        out.append(f"| {topo} | {kind} | sroce/rxe {text} | {yes} | {no} | {na} |")
    return out


def target_kind(row):
    name = row.point.split("/")[0]
    if name.startswith("nvmf_"):
        return "NVMe-oF " + {"iops": "4 KiB random read IOPS", "bw": "128 KiB read bandwidth"}.get(
            row.metric, "4 KiB random read p99 latency")
    if name == "msg_rate":
        return "8-byte message rate"
    if name.endswith("_bw"):
        return "bandwidth, 64 KiB and 1 MiB (write, read, send)"
    return "8-byte latency, " + ("typical" if row.metric == "lat_typ" else "99th percentile")


def readme_summary(rows, memcpy, source):
    """A compact table for the README: each target, how many points meet it."""
    kinds, cells = [], {}
    for r in rows:
        if r.target is None:
            continue
        kind = target_kind(r)
        if kind not in kinds:
            kinds.append(kind)
        cells.setdefault((kind, r.topo), []).append(r)
    out = [f"Latest full run ([{source}]({source})): sroce / rdma_rxe, medians; "
           "a cell says how many points meet the target and the range of ratios.", "",
           "| target | loopback | link |", "|---|---|---|"]
    for kind in kinds:
        line = f"| {kind} |"
        for topo in TOPOLOGIES:
            sel = cells.get((kind, topo), [])
            ratios = [r.ratio for r in sel if r.ratio is not None]
            if not sel:
                line += " — |"
                continue
            met = sum(1 for r in sel if r.met)
            lo, hi = (fmt(min(ratios)), fmt(max(ratios))) if ratios else (None, None)
            span = "no data" if lo is None else f"{lo}×" if lo == hi else f"{lo}–{hi}×"
            line += f" {sel[0].target[2]}: {met} of {len(sel)} met ({span}) |"
        out.append(line)
    loop = memcpy_by_size(memcpy, "loopback")
    ref = loop.get(1 << 20)
    best = max((r.sroce.median for r in rows if r.topo == "loopback" and r.metric == "bw"
                and r.point.split("/")[1] in BIG_MESSAGES and r.sroce.median is not None),
               default=None)
    if ref and best is not None:
        out.append(f"| loopback bandwidth vs the guest's memcpy ({fmt(ref)} MiB/s) | ≥0.5: best "
                   f"{fmt(best / ref)} ({'met' if best / ref >= 0.5 else 'not met'}) | — |")
    return out


def path_mtu(meta):
    """The path MTU perftest ran at: the device's active MTU, set by eth0's."""
    if meta.get("link_mtu"):
        return (f"link guests' eth0 MTU {meta['link_mtu']}: path MTU 4096 on the link "
                f"if it allows, 1024 in loopback")
    return "default MTU 1024"


def header(meta, guests, title):
    g = guests[0] if guests else {}
    mem = int(g["mem_kib"]) // 1024 if g.get("mem_kib", "").isdigit() else "?"
    out = [f"# {title}", "",
           "How to read this: [bench/results/README.md](README.md). Ratios are sroce / rdma_rxe "
           "medians from the same guest(s) in the same run (the providers alternate, one pass each "
           "per repeat); for latency lower is better, so the target is a ratio ≤ 0.5.", "",
           "| | |", "|---|---|",
           f"| date | {meta.get('date', '?')} |",
           f"| kernel | {meta.get('kernel', '?')} (stock Debian) |",
           f"| sroce | {meta.get('commit', '?')} |",
           f"| guest | {g.get('vcpus', meta.get('cpus', '?'))} vCPU, {mem} MiB, QEMU TCG "
           f"(`-accel tcg,thread=multi -cpu max`), {meta.get('qemu', '?')} |",
           f"| perftest | {meta.get('perftest', '?')} (`-F`, RC, {path_mtu(meta)}) |",
           f"| repeats | {meta.get('reps', '?')} per point (median; spread = (max − min) / median)"
           f"{' — QUICK smoke run' if meta.get('quick') == '1' else ''} |",
           f"| host | {meta.get('host_cpus', '?')} CPUs shared with other jobs; load average "
           f"{meta.get('load_start', '?')} at start, {meta.get('load_end', '?')} at end |",
           f"| duration | {meta.get('duration_s', '?')} s |"]
    for topo in TOPOLOGIES:
        if meta.get("vm_" + topo):
            out.append(f"| vm-run {topo} | {meta['vm_' + topo]} |")
    if meta.get("parallel") == "1":
        out.append("| topologies | run at the same time (three guests): faster, noisier |")
    if meta.get("points"):
        out.append(f"| points | only those matching `{meta['points']}` |")
    return out + [""]


def failures_section(merged):
    """Every run that failed (not those skipped for time), with perftest's reason."""
    failed = [(k, rec) for k, rec in sorted(merged.items())
              if rec["status"] == "fail"]
    if not failed:
        return []
    out = ["## Failed runs", "",
           "Runs that ended in an error or a timeout (the medians above leave them out); the reason "
           "is perftest's first complaint, the full output is in the console logs of the run.", "",
           "| topology | provider | repeat | point | reason |", "|---|---|---|---|---|"]
    for (topo, prov, rep, point), rec in failed:
        out.append(f"| {topo} | {prov} | {rep} | {label_of(point)} | {rec['why'].replace('_', ' ').strip()} |")
    return out + [""]


def write_markdown(path, meta, rows, merged, guests, memcpy, chart):
    reps = int(meta.get("reps", "3") or 3)
    title = f"sroce vs rdma_rxe: {meta.get('kernel', '?')}, {meta.get('date', '?')}"
    out = header(meta, guests, title)
    out += ["## Targets", ""] + summary(rows) + ["", f"![ratios]({os.path.basename(chart)})", ""]
    for topo in TOPOLOGIES:
        if not any(r.topo == topo for r in rows):
            continue
        what = ("one device, client and server in one guest" if topo == "loopback"
                else "two guests over the virtual link, server on host 0, client on host 1")
        out += [f"## {topo.capitalize()} ({what})", ""] + results_table(rows, topo, reps) + [""]
        if topo == "loopback":
            out += memcpy_section(rows, memcpy)
    out += failures_section(merged)
    out += ["## CPU", "",
            "Busy / kernel % of each guest's CPU time while the client ran (from /proc/stat; "
            "kernel = system + irq + softirq). perftest busy-polls its completion queue, so a guest "
            "running a client is near 100% busy; the kernel share and the server side (link: the "
            "passive side of WRITE/READ does nothing in user space) show the provider's cost. fio "
            "(the NVMe-oF rows) sleeps on its completions instead.", ""]
    for topo in TOPOLOGIES:
        if any(k[0] == topo for k in merged):
            out += [f"### {topo.capitalize()}", ""] + cpu_table(merged, topo) + [""]
    with open(path, "w") as f:
        f.write("\n".join(out))


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["topology", "point", "metric", "unit", "higher_is_better",
                    "rxe_median", "rxe_min", "rxe_max", "rxe_ok", "rxe_failed",
                    "sroce_median", "sroce_min", "sroce_max", "sroce_ok", "sroce_failed",
                    "ratio", "target", "met"])
        for r in rows:
            cols = [r.topo, r.point, r.metric, r.unit, int(r.higher)]
            for s in (r.rxe, r.sroce):
                cols += [s.median, min(s.values) if s.values else None,
                         max(s.values) if s.values else None, len(s.values), len(s.failures)]
            cols += [r.ratio, f"{r.target[0]}{r.target[1]}" if r.target else "",
                     "" if r.met is None else int(r.met)]
            w.writerow(["" if c is None else c for c in cols])


def write_raw_csv(path, runs):
    keys = []
    for r in runs:
        keys += [k for k in r if k not in keys]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(runs)


def write_chart(path, rows, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    topos = [t for t in TOPOLOGIES if any(r.topo == t for r in rows)]
    if not topos:
        return
    heights = [max(2.0, 0.28 * sum(r.topo == t for r in rows) + 1.2) for t in topos]
    fig, axes = plt.subplots(len(topos), 1, figsize=(9, sum(heights)),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, topo in zip(axes[:, 0], topos):
        sel = [r for r in rows if r.topo == topo]
        ys = range(len(sel))
        colors = ["#999999" if r.met is None else "#2a9d40" if r.met else "#d1453b" for r in sel]
        # Bars grow from 1 (as fast as rxe): right is better, left is worse.
        factors = [r.factor or 1.0 for r in sel]
        ax.barh(list(ys), [f - 1.0 for f in factors], left=1.0, color=colors, height=0.7)
        goals = []
        for y, r in zip(ys, sel):
            if r.target:
                goal = r.target[1] if r.higher else 1.0 / r.target[1]
                goals.append(goal)
                ax.plot([goal, goal], [y - 0.4, y + 0.4], color="black", linewidth=2)
            if r.factor is None:
                ax.text(1, y, " no data", va="center", fontsize=7)
        ax.set_xscale("log")
        ax.set_xlim(min(factors + goals + [0.5]) / 1.5, max(factors + goals + [2.0]) * 1.5)
        ticks = [t for t in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100)
                 if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
        ax.set_xticks(ticks, [f"{t:g}×" for t in ticks])
        ax.minorticks_off()
        ax.axvline(1.0, color="black", linewidth=0.6, linestyle=":")
        ax.set_yticks(list(ys), [r.label for r in sel], fontsize=7)
        ax.invert_yaxis()
        ax.set_title(f"{topo}: sroce improvement over rdma_rxe (×, higher is better; "
                     "black tick = target)", fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


README_BEGIN = "<!-- bench-table begin: make bench writes this table -->"
README_END = "<!-- bench-table end -->"


def splice_readme(path, lines):
    with open(path) as f:
        text = f.read()
    start, end = text.find(README_BEGIN), text.find(README_END)
    if start < 0 or end < start:
        print(f"report: no bench-table markers in {path}", file=sys.stderr)
        return
    text = text[:start + len(README_BEGIN)] + "\n" + "\n".join(lines) + "\n" + text[end:]
    with open(path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--meta", required=True)
    ap.add_argument("--out", required=True, help="path stem of the outputs")
    ap.add_argument("--latest", help="also copy the markdown here")
    ap.add_argument("--readme", help="replace the lines between the bench-table markers of this file")
    ap.add_argument("inputs", nargs="+")
    args = ap.parse_args()

    meta = read_meta(args.meta)
    runs, guests, memcpy = read_lines(args.inputs)
    merged = merge_sides(runs)
    rows = build_rows(merged)
    chart = args.out + ".png"
    title = f"sroce vs rdma_rxe, {meta.get('kernel', '?')}, {meta.get('date', '?')}"
    write_chart(chart, rows, title)
    write_markdown(args.out + ".md", meta, rows, merged, guests, memcpy, chart)
    write_csv(args.out + ".csv", rows)
    write_raw_csv(args.out + "-raw.csv", runs)
    if args.latest:
        shutil.copyfile(args.out + ".md", args.latest)
    if args.readme:
        source = os.path.relpath(args.out + ".md", os.path.dirname(os.path.abspath(args.readme)))
        splice_readme(args.readme, readme_summary(rows, memcpy, source))
    print(f"report: {args.out}.md ({len(runs)} runs, {len(rows)} rows)")
    print("\n".join(summary(rows)))


if __name__ == "__main__":
    main()
