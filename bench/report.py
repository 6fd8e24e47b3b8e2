#!/usr/bin/python3
"""report.py: renders one `make bench` run (the .jsonl scripts/bench.sh writes)
as markdown on standard output. docs/bench.md explains every column.

  bench/report.py bench/results/<date>-<host>.jsonl > bench/results/<date>-<host>.md
"""
import json
import statistics
import sys
from collections import defaultdict

import report_peak

# Kinds with one line per S (the others appear once per run).
RUN_KINDS = ("attnviz-wasm", "attnviz-native", "tfjs-wasm", "torch-1", "torch-2", "ort-web-1", "ort-web-2",
             "attnviz-wasm-stages", "attnviz-wasm-compare", "attnviz-wasm-output", "attnviz-wasm-mt",
             "attnviz-wasm-mt-stages", "attnviz-wasm-mt-compare", "attnviz-wasm-mt-output",
             "attnviz-wasm-seeded", "attnviz-wasm-explicit", "attnviz-wasm-mt-long", "ort-web-2-long",
             "tfjs-wasm-long")
LONG_KINDS = ("attnviz-wasm-mt-long", "ort-web-2-long", "tfjs-wasm-long")
# How the interactive table names each attnviz kind: the eager pipeline (every
# stage kept current, the figure) and the UI's lazy one with one view open.
BUILD_LABELS = {"attnviz-wasm": "wasm", "attnviz-native": "native",
                "attnviz-wasm-stages": "wasm, UI: Stages tab", "attnviz-wasm-compare": "wasm, UI: Compare heads",
                "attnviz-wasm-output": "wasm, UI: Q K V & output", "attnviz-wasm-mt": "wasm-mt (threads)",
                "attnviz-wasm-mt-stages": "wasm-mt, UI: Stages tab", "attnviz-wasm-mt-compare": "wasm-mt, UI: Compare heads",
                "attnviz-wasm-mt-output": "wasm-mt, UI: Q K V & output"}
# The app's tabs as `bench --view` runs them, and the plain run (every stage current).
TABS = (("stages", "Stages"), ("compare", "Compare heads"), ("output", "Q K V & output"),
        ("all", "every stage current"))
FRAME_MS = 1000 / 60  # one frame at 60 Hz



# A page loads the glue scripts and one of the module's two builds (attnviz,
# or attnviz-mt with its worker script when it is cross-origin isolated):
# [(build, gzip -9 bytes)] for each build the site has.
def downloads(files):
    builds = {"attnviz": ("attnviz.js", "attnviz.wasm"),
              "attnviz-mt": ("attnviz-mt.js", "attnviz-mt.wasm", "attnviz-mt.worker.js")}
    module_files = {n for names in builds.values() for n in names}
    shared = sum(v["gzip9"] for n, v in files.items() if n not in module_files)
    return [(b, shared + sum(files[n]["gzip9"] for n in names))
            for b, names in builds.items() if all(n in files for n in names)]

def merge_rounds(datas):
    """One record from several rounds of the same program and size: each
    numeric figure is its median over the rounds; `rounds` says how many."""
    out = dict(datas[0])
    for key, value in datas[0].items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            vals = [d[key] for d in datas if isinstance(d.get(key), (int, float))]
            out[key] = statistics.median(vals)
        elif isinstance(value, dict):  # nested figures (kernels, bandwidth_gbs): medians too
            out[key] = merge_rounds([d[key] for d in datas if isinstance(d.get(key), dict)])
            out[key].pop("rounds", None)
    out["rounds"] = len(datas)
    return out


def load(path):
    rounds = defaultdict(lambda: defaultdict(list))  # kind -> S -> [data, ...]
    single = {}
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            kind, data = rec["kind"], rec["data"]
            if kind in RUN_KINDS:
                rounds[kind][data["S"]].append(data)
            else:
                single.setdefault(kind, data)
    runs = defaultdict(dict)  # kind -> S -> data (medians over rounds)
    for kind, by_s in rounds.items():
        for S, datas in by_s.items():
            runs[kind][S] = merge_rounds(datas)
    return runs, single


def ms(x):
    if x is None:
        return "–"
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "–"
    return f"{a / b:.2f}×"


def get(runs, kind, S, key):
    return runs.get(kind, {}).get(S, {}).get(key)


def times_table(runs, sizes, key, title, note):
    out = [f"### {title}", "", note, "",
           "| S | attnviz wasm | tfjs-wasm | **tfjs / attnviz-wasm** | ort-web (1 thread) | ort-web (2 threads, wall) "
           "| attnviz native | torch (1 thread) | **attnviz-native / torch** | torch (2 threads, wall) |",
           "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for S in sizes:
        aw, tf = get(runs, "attnviz-wasm", S, key), get(runs, "tfjs-wasm", S, key)
        o1, o2 = get(runs, "ort-web-1", S, key), get(runs, "ort-web-2", S, "full_ms")
        an, t1 = get(runs, "attnviz-native", S, key), get(runs, "torch-1", S, key)
        t2 = get(runs, "torch-2", S, "full_ms")
        out.append(f"| {S} | {ms(aw)} | {ms(tf)} | **{ratio(tf, aw)}** | {ms(o1)} | {ms(o2)} | {ms(an)} | {ms(t1)} "
                   f"| **{ratio(an, t1)}** | {ms(t2)} |")
    return out


def versus(attnviz, peer):
    """How attnviz's time compares with a peer's: "2.10× faster" or "1.25× slower"."""
    if not attnviz or not peer:
        return "–"
    r = peer / attnviz
    return f"{r:.2f}× faster" if r >= 1 else f"{1 / r:.2f}× slower"


def ort_summary(runs, S):
    """One sentence: attnviz against ort-web at S, one thread (CPU) and two (wall), or []."""
    a1, o1 = get(runs, "attnviz-wasm", S, "full_cpu_ms"), get(runs, "ort-web-1", S, "full_cpu_ms")
    mt, o2 = get(runs, "attnviz-wasm-mt", S, "full_ms"), get(runs, "ort-web-2", S, "full_ms")
    if not (a1 and o1) and not (mt and o2):
        return []
    return [f"At S = {S}: on one thread attnviz is **{versus(a1, o1)}** than onnxruntime-web "
            f"(CPU {ms(a1)} against {ms(o1)} ms); on two threads attnviz-mt is **{versus(mt, o2)}** "
            f"(wall {ms(mt)} against {ms(o2)} ms).", ""]


def ort_table(runs, sizes):
    """attnviz against onnxruntime-web at one thread (CPU time) and two (wall clock)."""
    mt_threads = next((d.get("threads") for d in runs.get("attnviz-wasm-mt", {}).values()), 2)
    out = ["### Against onnxruntime-web, the strongest in-browser peer", "",
           "onnxruntime-web's wasm backend (SIMD, MLAS kernels) running the same forward exported to ONNX "
           "with every stage a graph output (bench/ort_bench.mjs). One thread: CPU time, wall clock in "
           "parentheses; two threads: wall clock (CPU time sums the threads). `faster` = attnviz takes "
           "less time than ort-web by that factor; `slower` = more.", ""]
    out += ort_summary(runs, 512)
    out += [f"| S | attnviz wasm | ort-web (1 thread) | **attnviz, 1 thread** | attnviz-mt ({mt_threads} threads) "
            "| ort-web (2 threads) | **attnviz, 2 threads** | ort-web 1 → 2 threads |",
            "| ---: | ---: | ---: | --- | ---: | ---: | --- | ---: |"]
    for S in sizes:
        a1, o1 = get(runs, "attnviz-wasm", S, "full_cpu_ms"), get(runs, "ort-web-1", S, "full_cpu_ms")
        aw, ow = get(runs, "attnviz-wasm", S, "full_ms"), get(runs, "ort-web-1", S, "full_ms")
        mt, o2 = get(runs, "attnviz-wasm-mt", S, "full_ms"), get(runs, "ort-web-2", S, "full_ms")
        out.append(f"| {S} | {ms(a1)} ({ms(aw)}) | {ms(o1)} ({ms(ow)}) | **{versus(a1, o1)}** (wall {versus(aw, ow)}) "
                   f"| {ms(mt)} | {ms(o2)} | **{versus(mt, o2)}** | {ratio(ow, o2)} |")
    return out + [""]


def threads_table(runs, sizes):
    """attnviz-mt (the page's build when cross-origin isolated) against the one-thread wasm build."""
    rows = []
    for S in sizes:
        mt, one = runs.get("attnviz-wasm-mt", {}).get(S), runs.get("attnviz-wasm", {}).get(S)
        if not mt or not one:
            continue
        cells = []
        for key in ("full_ms", "incremental_ms", "incremental_first_ms", "toggle_ms"):
            cells.append(f"{ms(one.get(key))} → {ms(mt.get(key))} ({ratio(one.get(key), mt.get(key))})")
        rows.append(f"| {S} | {mt.get('threads')} | " + " | ".join(cells) + " |")
    if not rows:
        return []
    return ["### attnviz-mt: the threaded wasm build", "",
            "Wall clock, one thread → attnviz-mt's threads (`bench --threads T` in the pthreads build), "
            "the speed-up in parentheses; every stage kept current. Not one of the issue's targets, which "
            "are single-threaded: this is what a page served cross-origin isolated gets. On this 2-core "
            "shared machine the second thread competes with everything else.", "",
            "| S | threads | full | edit | edit t0 | toggle |", "| ---: | ---: | --- | --- | --- | --- |"] + rows + [""]


def interactive_table(runs, sizes):
    out = ["### attnviz: one-token edits, toggles, memory, throughput", "",
           "Wall-clock medians in ms, CPU-time medians in parentheses. `edit` = X row S/2 "
           "changed, `edit t0` = row 0 (the worst case), `edit last` = row S−1 (typing at the "
           "end; the cheapest under a causal mask), `new token / delete` = a token added at the end and deleted "
           "again (S changes: seeded embedding and weights as the app keeps them; the new result takes the "
           "rows of Q, K, V and scores it finds again from the old one), `causal on / off` = the causal mask switched on / "
           "off, `padding` = one key's padding switched (an extra), `toggle` = the slowest of the three "
           "toggle medians (causal, both directions' samples together; dropout; temperature). Heap: wasm = WebAssembly memory size at exit (it only grows); "
           "native = peak RSS (ru_maxrss). `wasm, UI: …` rows run the pipeline as the app does "
           "(`bench --view stages|compare|output`: lazy, each timed call is set_state plus reading what that "
           "tab shows, so `full` includes computing the view on first read); the other rows keep "
           "every stage of every head current.", "",
           "| build | S | full | edit | edit t0 | edit last | new token / delete | causal on / off | padding | dropout | temperature "
           "| **toggle** | peak heap MB | pipeline MB | GFLOP/s (CPU) |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for kind in ("attnviz-wasm", "attnviz-native", "attnviz-wasm-stages", "attnviz-wasm-compare",
                 "attnviz-wasm-output", "attnviz-wasm-mt", "attnviz-wasm-mt-stages", "attnviz-wasm-mt-compare",
                 "attnviz-wasm-mt-output"):
        for S in sizes:
            d = runs.get(kind, {}).get(S)
            if not d:
                continue
            out.append(
                f"| {BUILD_LABELS[kind]} | {S} | {ms(d['full_ms'])} ({ms(d.get('full_cpu_ms'))}) "
                f"| {ms(d['incremental_ms'])} ({ms(d.get('incremental_cpu_ms'))}) "
                f"| {ms(d.get('incremental_first_ms'))} | {ms(d.get('incremental_last_ms'))} "
                f"| {ms(d.get('append_ms'))} / {ms(d.get('remove_last_ms'))} "
                f"| {ms(d.get('toggle_causal_on_ms'))} / {ms(d.get('toggle_causal_off_ms'))} "
                f"| {ms(d.get('toggle_padding_ms'))} "
                f"| {ms(d.get('toggle_dropout_ms'))} | {ms(d.get('toggle_temperature_ms'))} "
                f"| **{ms(d['toggle_ms'])}** ({ms(d.get('toggle_cpu_ms'))}) | {d['peak_heap_mb']:.0f} "
                f"| {d.get('pipeline_estimate_mb', 0):.0f} | {d['gflops']:.1f} ({d.get('gflops_cpu', 0):.1f}) |")
    return out


def weights_table(runs):
    """A learner's own weights (explicit values) against a tutorial's seeded ones of the
    same shape, as the app runs them: returns (markdown lines, worst CPU ratio or None)."""
    seeded, explicit = runs.get("attnviz-wasm-seeded", {}), runs.get("attnviz-wasm-explicit", {})
    sizes = sorted(set(seeded) & set(explicit))
    if not sizes:
        return [], None
    out = ["### Explicit weights against seeded ones (wasm, as the app runs them)", "",
           "`bench --view stages --weights seeded|explicit`: the Stages tab open, and each timed call "
           "includes the app's handling of the state (the draft handed over, the replaced state kept for "
           "undo, the two compared, the undo stack) beside set_state. Explicit = the same numbers given as "
           "values, as File → Open weights… gives a learner's trained weights. CPU-time medians in ms "
           "(wall clock in parentheses); ratio = explicit / seeded on CPU time.", "",
           "| S | edit seeded | edit explicit | **edit ratio** | toggle seeded | toggle explicit | **toggle ratio** |",
           "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    worst = None
    for S in sizes:
        a, b = seeded[S], explicit[S]
        ea, eb = a.get("incremental_cpu_ms"), b.get("incremental_cpu_ms")
        ta, tb = a.get("toggle_cpu_ms"), b.get("toggle_cpu_ms")
        for x, y in ((eb, ea), (tb, ta)):
            if x is not None and y:
                worst = max(worst or 0, x / y)
        out.append(f"| {S} | {ms(ea)} ({ms(a['incremental_ms'])}) | {ms(eb)} ({ms(b['incremental_ms'])}) "
                   f"| **{ratio(eb, ea)}** | {ms(ta)} ({ms(a['toggle_ms'])}) | {ms(tb)} ({ms(b['toggle_ms'])}) "
                   f"| **{ratio(tb, ta)}** |")
    return out + [""], worst


def exact_floor_flops(d, heads_shown=None, output=True):
    """Matrix-product FLOPs an exact update cannot skip (softmax's exps not counted):
    (edit of row S/2, dropout toggle). Under a causal mask, changing key i changes
    softmax rows i..S−1 of every head, so those context rows and output rows are
    recomputed; a dropout toggle changes every dropped row. Non-causal: every row.
    heads_shown / output: only that many heads' context and, if output, the output
    projection are needed (a tab showing less; by default every stage)."""
    S, dout = d["S"], d["d_out"]
    i = S // 2
    share = 1 if heads_shown is None else heads_shown / d["heads"]
    rows_edit = range(i, S) if d.get("causal") else range(S)
    keys = (lambda r: r + 1) if d.get("causal") else (lambda r: S)
    ctx = lambda rows: 2 * dout * share * sum(keys(r) for r in rows)  # Σ heads: head_dim · H = d_out
    out = lambda n: 2 * n * dout * dout if output else 0
    return ctx(rows_edit) + out(len(rows_edit)), ctx(range(S)) + out(S)


def tab_floor_flops(d, view):
    """exact_floor_flops for what one tab shows: Stages = scores … context of head 0
    (head 0's context rows); Compare heads = every head's weights (softmax only:
    no product counted, 0); Q K V & output and `all` = every head's context and
    the output projection, the floor the targets table prints."""
    if view == "stages":
        return exact_floor_flops(d, heads_shown=1, output=False)
    if view == "compare":
        return exact_floor_flops(d, heads_shown=0, output=False)
    return exact_floor_flops(d)


def fits(value, frames):
    """Whether `value` ms fits in that many 60 Hz frames, and by how much it misses."""
    if value is None:
        return "–"
    budget = frames * FRAME_MS
    return "yes" if value <= budget else f"**no**, +{ms(value - budget)} ms ({value / budget:.1f}×)"


def page_interaction_table(runs, S=512):
    """Issue 5's interaction targets restated as frames, on the build the app page loads
    (attnviz-mt): per tab, the worst edit and slowest toggle on the wall clock (CPU time
    sums the threads), against one and two frames, beside the tab's exact floor at the
    build's own full-forward rate (GFLOP/s, wall clock)."""
    full = runs.get("attnviz-wasm-mt", {}).get(S, {})
    any_d = full or next((runs.get(f"attnviz-wasm-mt-{v}", {}).get(S) for v, _ in TABS
                          if runs.get(f"attnviz-wasm-mt-{v}", {}).get(S)), {})
    rate = full.get("gflops")
    out = [f"### Interaction on the page's build (attnviz-mt, {any_d.get('threads', 2)} threads), S = {S}, "
           f"d {any_d.get('d_model', 768)}, {any_d.get('heads', 12)} heads", "",
           "Wall clock, ms (medians over rounds). `edit`: the worse of the one-token edits of row S/2 and row 0; "
           "`toggle`: the slowest of the causal, dropout and temperature toggles (as in the targets above). "
           f"A frame is {ms(FRAME_MS)} ms at 60 Hz; a miss shows by how much. Exact floor: the matrix products "
           "the tab's stages need after that change (`tab_floor_flops`), at this build's full-forward rate "
           f"({f'{rate:.0f} GFLOP/s, wall' if rate else 'not measured'}); softmax exps not counted.", "",
           "| tab | edit | toggle | edit ≤ 1 frame | edit ≤ 2 frames | toggle ≤ 1 frame | toggle ≤ 2 frames "
           "| exact floor, edit / toggle |",
           "| --- | ---: | ---: | --- | --- | --- | --- | ---: |"]
    for view, label in TABS:
        d = runs.get("attnviz-wasm-mt" if view == "all" else f"attnviz-wasm-mt-{view}", {}).get(S)
        edit = max(d["incremental_ms"], d.get("incremental_first_ms", 0)) if d else None
        toggle = d["toggle_ms"] if d else None
        floor = [ms(f / (rate * 1e6)) if f else "0" for f in tab_floor_flops(any_d, view)] if rate else ["–", "–"]
        out.append(f"| {label} | {ms(edit)} | {ms(toggle)} | {fits(edit, 1)} | {fits(edit, 2)} "
                   f"| {fits(toggle, 1)} | {fits(toggle, 2)} | {floor[0]} / {floor[1]} |")
    return out + [""]


def targets(runs, single):
    """Issue 5's targets, judged on this run (CPU-time ratios; wall clock beside)."""
    rows = []

    def row(what, target, value, met):
        rows.append(f"| {what} | {target} | {value} | {'met' if met else '**not met**'} |")

    S = 512
    aw, tf = get(runs, "attnviz-wasm", S, "full_cpu_ms"), get(runs, "tfjs-wasm", S, "full_cpu_ms")
    if aw and tf:
        r = tf / aw
        rw = get(runs, "tfjs-wasm", S, "full_ms") / get(runs, "attnviz-wasm", S, "full_ms")
        row("full forward S=512, wasm vs tfjs-wasm", "≥ 5× faster", f"{r:.2f}× (wall {rw:.2f}×)", r >= 5)
    for kind in ("attnviz-wasm",):
        d = runs.get(kind, {}).get(S)
        if d:
            worst = max(d.get("incremental_cpu_ms", 0), d.get("incremental_first_cpu_ms", 0))
            worst_wall = max(d["incremental_ms"], d.get("incremental_first_ms", 0))
            rate = d.get("gflops_cpu") or d["gflops"]  # this run's full-forward GFLOP/s
            f_edit, f_toggle = exact_floor_flops(d)
            row("one-token edit S=512 (wasm, worst of mid / token 0, CPU)", "≤ 5 ms",
                f"{ms(worst)} ms (wall {ms(worst_wall)}); last token {ms(d.get('incremental_last_cpu_ms'))} ms; "
                f"exact floor at {rate:.0f} GFLOP/s: {f_edit / (rate * 1e6):.1f} ms (mid)", worst <= 5)
            tcpu = d.get("toggle_cpu_ms", d["toggle_ms"])
            row("toggle S=512 (wasm, slowest, CPU)", "≤ 10 ms",
                f"{ms(tcpu)} ms (wall {ms(d['toggle_ms'])}); exact floor at {rate:.0f} GFLOP/s: "
                f"{f_toggle / (rate * 1e6):.1f} ms (dropout)", tcpu <= 10)
    for kind, tab in (("attnviz-wasm-stages", "Stages tab"), ("attnviz-wasm-compare", "Compare heads tab"),
                      ("attnviz-wasm-output", "Q K V & output tab")):
        d = runs.get(kind, {}).get(S)
        if d:
            worst = max(d.get("incremental_cpu_ms", 0), d.get("incremental_first_cpu_ms", 0))
            row(f"one-token edit S=512 as the app runs it, {tab} open (wasm, worst of mid / token 0, CPU)",
                "≤ 5 ms", f"{ms(worst)} ms (wall {ms(max(d['incremental_ms'], d.get('incremental_first_ms', 0)))})",
                worst <= 5)
            tcpu = d.get("toggle_cpu_ms", d["toggle_ms"])
            row(f"toggle S=512 as the app runs it, {tab} open (wasm, slowest, CPU)", "≤ 10 ms",
                f"{ms(tcpu)} ms (wall {ms(d['toggle_ms'])})", tcpu <= 10)
    _, worst = weights_table(runs)
    if worst is not None:
        row("edit and toggle with explicit weights vs seeded, S=16/64/512 as the app runs them (wasm, CPU)",
            "≤ 1.2×", f"worst {worst:.2f}×", worst <= 1.2)
    d = runs.get("attnviz-wasm", {}).get(1024)
    if d:
        row("peak wasm heap S=1024", "≤ 256 MB", f"{d['peak_heap_mb']:.0f} MB", d["peak_heap_mb"] <= 256)
    dl = single.get("download", {}).get("files", {})
    for build, total in downloads(dl):
        row(f"site .wasm + .js, gzip -9, as a page loads it with {build}", "≤ 1.5 MB", f"{total / 2**20:.2f} MB",
            total <= 1.5 * 2**20)
    an, t1 = get(runs, "attnviz-native", S, "full_cpu_ms"), get(runs, "torch-1", S, "full_cpu_ms")
    if an and t1:
        row("native S=512 vs torch (1 thread)", "≤ 3× torch's time", f"{an / t1:.2f}×", an / t1 <= 3)
    fr = single.get("frame")
    if fr and fr.get("frame_ms") is not None:
        row(f"browser frame, {fr.get('heads_visible')} of 12 heads on screen, S={fr.get('S')} (wall)", "≤ 8 ms",
            f"{ms(fr['frame_ms'])} ms", fr["frame_ms"] <= 8)
    if fr and fr.get("click_ratio") is not None:
        row(f"click on Causal mask to its frame, explicit vs seeded GPT-2-sized weights, S={fr.get('click_S')} "
            "(browser, wall)", "≤ 1.5×",
            f"{fr['click_ratio']:.2f}× ({fr['click_explicit_ms']} vs {fr['click_seeded_ms']} ms)",
            fr["click_ratio"] <= 1.5)
    if not rows:
        return []
    return ["## Targets on this run (issues 5 and 32)", "",
            "Judged on CPU time (wall clock in parentheses) except the browser frame, which "
            "frameStats() measures on the wall clock.", "",
            "| target | wanted | this run | |", "| --- | --- | --- | --- |"] + rows + [""]


def long_table(runs):
    """Issue 36's targets at long S (attnviz-cli bench-long in the page's build), beside
    the peers' full forward where they fit in memory."""
    mine = runs.get("attnviz-wasm-mt-long", {})
    if not mine:
        return []
    sizes = sorted(set(mine) | set(runs.get("ort-web-2-long", {})) | set(runs.get("tfjs-wasm-long", {})))
    out = ["## Long inputs (issue 36)", "",
           "`attnviz-cli bench-long` in the page's build (wasm-mt, 2 threads), causal, as the page runs it: no "
           "(S × S) buffer above 2,048 tokens; the shown head's weights as an overview of ⌈S/256⌉² blocks. "
           "Targets at 8,192: shown head ≤ 1 s after load, every head ≤ 4 s (load included here), last-token edit ≤ 100 ms, first-token "
           "edit ≤ 1.5 s, 64 × 64 tile ≤ 50 ms, panning over kept rows within a 16.7 ms frame, page memory ≤ 512 MB. "
           "The peers compute every stage of every head whole (one forward, 2 threads for ort-web); "
           "an error is where they ran out of memory. Milliseconds, one round; the edits, the tile and the pan are medians of 3 reps (1 at 32,768).", "",
           "| S | load | shown head after load | load + shown | load + all heads | edit last | edit first | tile 64² | "
           "pan | pipeline MiB | wasm MiB | ort-web (2 thr.) forward | tfjs forward |",
           "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for S in sizes:
        d = mine.get(S, {})
        def peer(kind):
            p = runs.get(kind, {}).get(S)
            if p is None:
                return "–"
            return "out of memory" if "error" in p else ms(p.get("full_ms"))
        if "error" in d:
            cells = ["refused / out of memory"] + ["–"] * 9
        else:
            cells = [ms(d.get(k)) for k in ("load_ms", "first_map_ms", "shown_ms", "all_maps_ms", "edit_last_ms",
                                            "edit_first_ms", "tile_ms", "pan_ms")]
            cells += [f"{d['pipeline_mb']:.0f}" if "pipeline_mb" in d else "–",
                      f"{d['peak_heap_mb']:.0f}" if "peak_heap_mb" in d else "–"]
        out.append(f"| {S:,} | " + " | ".join(cells + [peer("ort-web-2-long"), peer("tfjs-wasm-long")]) + " |")
    return out + [""]


def main():
    runs, single = load(sys.argv[1])
    m = single.get("machine", {})
    after = single.get("machine_after", {})
    # The peers' sizes (the explicit/seeded rows have sizes of their own: weights_table).
    sizes = sorted({S for kind, by_s in runs.items()
                    if kind not in ("attnviz-wasm-seeded", "attnviz-wasm-explicit") + LONG_KINDS for S in by_s})
    a = next(iter(runs.get("attnviz-wasm", {}).values()), {})
    out = [f"# attnviz bench — {m.get('date', '?')} on {m.get('host', '?')}", "",
           f"Multi-head attention forward with every stage kept: d_model = d_out = {a.get('d_model', '?')}, "
           f"{a.get('heads', '?')} heads, causal, Q/K/V biases, output projection with bias; medians of "
           f"{a.get('reps', '?')} reps, each kind of call after one untimed warm-up, then each figure's median over "
           f"{a.get('rounds', 1)} interleaved round(s) of every program. Produced by `make bench` "
           "(scripts/bench.sh); definitions in docs/bench.md.", "",
           "## Machine", "",
           f"- CPU: {m.get('cpu', '?')}, {m.get('cores', '?')} cores ({', '.join(m.get('cpu_flags', []))}), "
           f"{m.get('mem_gb', '?')} GB, Linux {m.get('kernel', '?')}",
           f"- node {m.get('node', '?')}; {m.get('emscripten', '?')}; torch {m.get('torch', '?')} with "
           f"OpenBLAS {m.get('openblas', '?')} (pthread build); tfjs-core/tfjs-backend-wasm {m.get('tfjs', '?')}; "
           f"onnxruntime-web {m.get('ort_web', '–')}",
           f"- commit {m.get('commit', '?')} ({m.get('source', 'work tree')})"
           + (f" (+ {m['engine_uncommitted_files']} uncommitted engine/build files in the shared tree)"
              if m.get("engine_uncommitted_files") else ""),
           f"- load average before {m.get('load_before', '?')}, after {after.get('load_after', '?')} "
           "(a shared machine: CPU time is the steadier measure; ratios use it)", ""]
    out += targets(runs, single)
    out += report_peak.section(runs, sizes, get, versus)
    out += ["## Full forward", ""]
    out += times_table(runs, sizes, "full_cpu_ms", "CPU time (ms, median) — the figure of merit",
                       "CPU time of the measuring process around each forward (single-threaded "
                       "engines; other processes on the machine do not count).")
    out += [""]
    out += times_table(runs, sizes, "full_ms", "Wall clock (ms, median)",
                       "Includes time other processes took from this one.")
    out += [""]
    out += ort_table(runs, sizes)
    out += interactive_table(runs, sizes)
    out += [""]
    out += weights_table(runs)[0]
    out += threads_table(runs, sizes)
    out += page_interaction_table(runs)
    out += long_table(runs)
    dl = single.get("download", {}).get("files", {})
    if dl:
        out += ["## Download (gzip -9)", "", "| file | bytes | gzip -9 |", "| --- | ---: | ---: |"]
        for n, v in dl.items():
            out.append(f"| {n} | {v['bytes']:,} | {v['gzip9']:,} |")
        for build, total in downloads(dl):
            out.append(f"| **a page with {build}** | | **{total:,}** |")
        out.append("")
    fr = single.get("frame")
    if fr:
        out += ["## Browser frame", "",
                f"`window.attnviz.frameStats()` in headless Chromium (SwiftShader WebGL), S = {fr.get('S')}, "
                f"Compare heads tab ({fr.get('heads_visible', '?')} heads' weights visible), "
                f"{fr.get('frames', '?')} frames: " + ", ".join(
                    f"{k} {v}" for k, v in fr.items() if k not in ("S", "frames", "heads_visible")), ""]
    c = single.get("check")
    if c:
        out += ["## Same arithmetic?", "",
                f"bench/check_peers.py: S = {c['S']}, d_model = {c['d_model']}, {c['heads']} heads, causal, "
                "explicit float32 inputs; largest |difference| from `attnviz-cli run`:", ""]
        for peer in ("torch", "tfjs", "ort-web"):
            if peer in c:
                out.append(f"- {peer}: output {c[peer]['output_max_abs_diff']:.2e}, "
                           f"attention weights {c[peer]['weights_max_abs_diff']:.2e}")
        out += [f"- within {c['tolerance']}: {'yes' if c['ok'] else '**no**'}", ""]
    print("\n".join(out))


if __name__ == "__main__":
    main()
