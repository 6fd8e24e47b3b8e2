#!/usr/bin/env python3
"""Adds up the JUnit reports in a folder and prints "N passed, N failed" last.

Suites: native, wasm, wasm-mt, native-asan and native-tsan (ctest trees:
build/native, build/wasm, build/wasm-mt, build/asan, build/tsan), e2e (node:test), fuzz
(scripts/fuzz.sh, one case) and notebook (pytest's and node:test's reports).
Each suite's line ends with its wall time (NAME.seconds, written by
scripts/suite.sh), and a line before the last gives each tree's build time
(builds.txt, written by scripts/timed.sh), so the next slow part is visible.
GoogleTest writes one report per test executable (<suite>-<name>.xml); ctest's
own report (<suite>-ctest.xml) counts each registered test once, so a ctest entry
that also wrote a GoogleTest report is counted through its cases instead. A suite
whose report is missing counts as one failure: a suite that did not run must not
look green. A line per suite shows where the numbers come from.
"""
import os
import sys
import xml.etree.ElementTree as ET


def cases(path):
    root = ET.parse(path).getroot()
    for tc in root.iter("testcase"):
        failed = tc.find("failure") is not None or tc.find("error") is not None
        skipped = tc.find("skipped") is not None or tc.get("status") == "notrun"
        yield tc.get("classname", ""), tc.get("name", ""), failed, skipped


def failure_excerpts(path, lines=8):
    """(name, first lines of the failure message) of each failed case: printed with
    the summary, so a log that keeps only its tail still says what broke."""
    root = ET.parse(path).getroot()
    for tc in root.iter("testcase"):
        bad = tc.find("failure")
        if bad is None:
            bad = tc.find("error")
        if bad is None:
            continue
        text = " ".join(x for x in (bad.get("message", ""), bad.text or "") if x).strip()
        yield tc.get("name", ""), "\n".join(text.splitlines()[:lines])


CTEST_SUITES = ("native", "wasm", "wasm-mt", "native-asan", "native-tsan")
SINGLE_SUITES = (("e2e", ("e2e.xml",), "the browser tests did not run"),
                 ("fuzz", ("fuzz.xml",), "the fuzzer did not run"),
                 ("notebook", ("notebook-python.xml", "notebook.xml"), "the notebook tests did not run"))


def format_seconds(s):
    return f"{s // 60} min {s % 60:02d} s" if s >= 60 else f"{s} s"


def owner(filename):
    """The ctest suite a GoogleTest report belongs to (longest prefix wins)."""
    best = None
    for suite in CTEST_SUITES:
        if filename.startswith(suite + "-") and (best is None or len(suite) > len(best)):
            best = suite
    return best


def main(folder):
    totals = {"passed": 0, "failed": 0, "skipped": 0}
    files = sorted(os.listdir(folder))

    def add(suite, counts):
        for k in totals:
            totals[k] += counts[k]
        extra = f", {counts['skipped']} skipped" if counts["skipped"] else ""
        print(f"  {suite}: {counts['passed']} passed, {counts['failed']} failed{extra}{wall(suite)}")

    def wall(suite):
        path = os.path.join(folder, suite + ".seconds")
        if not os.path.exists(path):
            return ""
        wall_cpu = open(path).read().split()
        cpu = f", CPU {format_seconds(int(wall_cpu[1]))}" if len(wall_cpu) > 1 else ""
        return f" ({format_seconds(int(wall_cpu[0]))}{cpu})"

    def count(path, counts, skip_names=()):
        """Adds a report's cases; a ctest entry in skip_names was counted case by
        case from its GoogleTest report, unless it failed with no failing case
        there (a crash, or a leak reported at exit): then it counts once."""
        for _, name, bad, skip in cases(path):
            if name in skip_names and (not bad or skip_names[name]):
                continue
            counts["skipped"] += skip
            counts["failed"] += bad and not skip
            counts["passed"] += not bad and not skip

    for suite in CTEST_SUITES:
        counts = {"passed": 0, "failed": 0, "skipped": 0}
        ctest = f"{suite}-ctest.xml"
        if ctest not in files:
            print(f"{suite}: no ctest report (the suite did not run)")
            counts["failed"] = 1
            add(suite, counts)
            continue
        gtest = [f for f in files if f != ctest and f.endswith(".xml") and owner(f) == suite]
        gtest_failed = {}  # ctest name -> whether its GoogleTest report has a failing case
        for f in gtest:
            before = counts["failed"]
            count(os.path.join(folder, f), counts)
            gtest_failed[os.path.splitext(f[len(suite) + 1:])[0]] = counts["failed"] > before
        count(os.path.join(folder, ctest), counts, gtest_failed)
        add(suite, counts)
    for suite, names, missing in SINGLE_SUITES:
        counts = {"passed": 0, "failed": 0, "skipped": 0}
        for name in names:
            path = os.path.join(folder, name)
            if os.path.exists(path):
                count(path, counts)
            else:
                print(f"{suite}: no report {name} ({missing})")
                counts["failed"] += 1
        add(suite, counts)
    for f in files:
        if f.endswith(".xml"):
            try:
                for name, text in failure_excerpts(os.path.join(folder, f)):
                    print(f"  FAILED {f[:-4]}: {name}")
                    for row in text.splitlines():
                        print(f"    | {row[:200]}")
            except ET.ParseError:
                print(f"  {f}: unreadable report")
    builds = os.path.join(folder, "builds.txt")
    if os.path.exists(builds):
        parts = []
        for row in open(builds).read().split("\n"):
            if row.strip():
                name, seconds, code, *cpu = row.split()
                parts.append(f"{name} {format_seconds(int(seconds))}"
                             + (f" (CPU {format_seconds(int(cpu[0]))})" if cpu else "")
                             + ("" if code == "0" else " FAILED"))
        print("  builds: " + ", ".join(parts))
    line = f"{totals['passed']} passed, {totals['failed']} failed"
    if totals["skipped"]:
        line += f", {totals['skipped']} skipped"
    print(line)
    return 1 if totals["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
