"""The report's "Machine peak" section (issue 37): the SIMD peak and read bandwidth
each attnviz run measured first (`attnviz-cli bench`, engine/cli/bench_machine.cpp),
the full forward and each kernel as a fraction of that peak, and the roofline: the
forward's FLOPs at the peak. Imported by bench/report.py."""

KERNELS = (("qkv", "Q, K, V projections"), ("scores", "scores Q_h·K_hᵀ"), ("softmax", "mask + softmax"),
           ("context", "weights·V_h (causal: to the last non-zero key)"), ("output", "output projection"))
GOAL = 0.85  # issue 37: the full forward at S = 512 reaches 85 % of the measured peak


def pct(x):
    return "–" if x is None else f"{100 * x:.0f} %"


def num(x, digits=1):
    return "–" if x is None else f"{x:.{digits}f}"


def peak_line(d, what):
    if not d or not d.get("peak_gflops"):
        return []
    bw = d.get("bandwidth_gbs", {})
    kern = ", ".join(f"{k} {v:.1f}" for k, v in sorted(d.get("peak_kernels", {}).items()))
    line = (f"- {what}: peak **{d['peak_gflops']:.1f} GFLOP/s** ({d.get('peak_isa', '?')}, "
            f"{d.get('peak_lanes', '?')} lanes; kernels {kern}); read bandwidth L1 {num(bw.get('l1_16k'))}, "
            f"L2 {num(bw.get('l2_512k'))}, beyond L2 {num(bw.get('mem_32m'))} GB/s")
    if d.get("peak_simd128_gflops"):
        line += f"; its 4-lane (SSE, SIMD128's width) peak {d['peak_simd128_gflops']:.1f} GFLOP/s"
    return [line]


def section(runs, sizes, get, versus):
    """Markdown lines; [] when no run carries a peak (results from before issue 37)."""
    wasm = runs.get("attnviz-wasm", {})
    any_d = next((d for d in wasm.values() if d.get("peak_gflops")), None)
    nat = next((d for d in runs.get("attnviz-native", {}).values() if d.get("peak_gflops")), None)
    if not any_d and not nat:
        return []
    cpu = (any_d or nat).get("cpu_model", "?")
    out = ["## Machine peak (issue 37)", "",
           f"Every attnviz run first measures this core's SIMD peak: float32 multiplies and adds, not fused (the "
           f"engine's products never fuse), in the width of the kernels it runs, the best of four kernels with "
           f"enough independent chains; then its single-thread read bandwidth. CPU: **{cpu}**. Fractions use CPU "
           f"time; the roofline is the forward's FLOPs (`flops`, the causal context counted whole) at the peak: "
           f"every product is compute-bound (tens of FLOPs per byte), so bandwidth does not bound it.", ""]
    out += peak_line(any_d, "wasm (node, one thread)") + peak_line(nat, "native")
    out += ["", "| S | wasm GFLOP/s | of peak | roofline ms | 85 % of peak ms | native GFLOP/s | of peak "
            "| attnviz-mt GFLOP/s (wall) | vs ort-web, 1 thread | attnviz-mt vs ort-web, 2 threads |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    for S in sizes:
        d = wasm.get(S, {})
        n = runs.get("attnviz-native", {}).get(S, {})
        mt = runs.get("attnviz-wasm-mt", {}).get(S, {})
        peak, flops = d.get("peak_gflops"), d.get("flops")
        roof = flops / (peak * 1e6) if peak and flops else None
        a1, o1 = d.get("full_cpu_ms"), get(runs, "ort-web-1", S, "full_cpu_ms")
        m2, o2 = mt.get("full_ms"), get(runs, "ort-web-2", S, "full_ms")
        out.append(f"| {S} | {num(d.get('gflops_cpu'))} | {pct(d.get('of_peak'))} | {num(roof)} "
                   f"| {num(roof / GOAL if roof else None)} | {num(n.get('gflops_cpu'))} | {pct(n.get('of_peak'))} "
                   f"| {num(mt.get('gflops'))} | {versus(a1, o1) if a1 and o1 else '–'} "
                   f"| {versus(m2, o2) if m2 and o2 else '–'} |")
    out += [""]
    S = 512 if 512 in wasm else (max(wasm) if wasm else None)
    d, n = wasm.get(S, {}), runs.get("attnviz-native", {}).get(S, {})
    if d.get("kernels") or n.get("kernels"):
        out += [f"Each kernel of the forward at S = {S}, timed as the pipeline calls it (median CPU ms per "
                "forward; GFLOP/s of what it executes; fraction of that build's peak):", "",
                "| kernel | wasm ms | GFLOP/s | of peak | native ms | GFLOP/s | of peak |",
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
        kw, kn = d.get("kernels") or {}, n.get("kernels") or {}
        for key, name in KERNELS:
            w, v = kw.get(key, {}), kn.get(key, {})
            out.append(f"| {name} | {num(w.get('ms'))} | {num(w.get('gflops'))} | {pct(w.get('of_peak'))} "
                       f"| {num(v.get('ms'))} | {num(v.get('gflops'))} | {pct(v.get('of_peak'))} |")
        out.append(f"| transposes, concat | {num(kw.get('transpose_concat_ms'))} | | | "
                   f"{num(kn.get('transpose_concat_ms'))} | | |")
        out.append(f"| the rest of the forward (full − the five) | {num(kw.get('other_ms'))} | | | "
                   f"{num(kn.get('other_ms'))} | | |")
        out += [""]
    if d.get("of_peak") is not None:
        met = d["of_peak"] >= GOAL
        out += [f"Issue 37's goals at S = {S}: the wasm forward at ≥ {pct(GOAL)} of the measured peak: "
                f"{pct(d['of_peak'])}, {'met' if met else '**not met**'}"]
        for kind, peer, key, what in (("attnviz-wasm", "ort-web-1", "full_cpu_ms", "1 thread, CPU"),
                                      ("attnviz-wasm-mt", "ort-web-2", "full_ms", "2 threads, wall")):
            a, o = get(runs, kind, S, key), get(runs, peer, S, key)
            if a and o:
                out[-1] += (f"; ≥ 1.5× onnxruntime-web ({what}): {o / a:.2f}×, "
                            f"{'met' if o / a >= 1.5 else '**not met**'}")
        out[-1] += "."
        out += [""]
    return out
