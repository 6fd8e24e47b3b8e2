#!/usr/bin/env python3
"""Adds up the JUnit reports in a folder and prints "N passed, N failed" last.

GoogleTest writes one report per test executable (GTEST_OUTPUT=xml:dir/name-);
ctest's own report counts each registered test once, so a ctest entry that also
wrote a GoogleTest report is counted through its cases instead. node:test writes
e2e.xml. A suite whose report is missing counts as one failure: a suite that did
not run must not look green.
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


def main(folder):
    passed = failed = skipped = 0
    files = sorted(os.listdir(folder))
    for suite in ("native", "wasm"):
        ctest = os.path.join(folder, f"{suite}-ctest.xml")
        gtest = [f for f in files if f.startswith(f"{suite}-") and f != f"{suite}-ctest.xml"]
        gtest_names = {os.path.splitext(f[len(suite) + 1:])[0] for f in gtest}
        if not os.path.exists(ctest):
            print(f"{suite}: no ctest report (the suite did not run)")
            failed += 1
            continue
        for f in gtest:
            for _, _, bad, skip in cases(os.path.join(folder, f)):
                skipped += skip
                failed += bad and not skip
                passed += not bad and not skip
        for _, name, bad, skip in cases(ctest):
            if name in gtest_names and not bad:
                continue  # counted case by case above
            skipped += skip
            failed += bad and not skip
            passed += not bad and not skip
    e2e = os.path.join(folder, "e2e.xml")
    if os.path.exists(e2e):
        for _, _, bad, skip in cases(e2e):
            skipped += skip
            failed += bad and not skip
            passed += not bad and not skip
    else:
        print("e2e: no report (the browser tests did not run)")
        failed += 1
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
