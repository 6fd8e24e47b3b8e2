#!/usr/bin/python3
"""Runs the PyTorch scripts attnviz exported, in one Python process.

    /usr/bin/python3 tests/engine/run_torch_scripts.py SCRIPT.py ...

Each script runs twice, as `python3 SCRIPT.py --json` and as `python3 SCRIPT.py`
would run it (runpy, run_name "__main__", sys.argv set, its output captured):
SCRIPT.py.json gets what --json printed, SCRIPT.py.txt what the plain run printed,
and SCRIPT.py.err the traceback instead when a run raised (SystemExit included:
a script must finish by itself). torch is imported once here (about a second
and a half of CPU), which keeps tests/engine/torch_script_check.cpp quick.
"""
import contextlib
import io
import runpy
import sys
import traceback

import torch

torch.set_num_threads(1)  # a shared 2-core machine; the tolerances do not depend on it


def run(path, args):
    out = io.StringIO()
    sys.argv = [path] + args
    with contextlib.redirect_stdout(out):
        runpy.run_path(path, run_name="__main__")
    return out.getvalue()


for script in sys.argv[1:]:
    try:
        outputs = {".json": run(script, ["--json"]), ".txt": run(script, [])}
    except BaseException:  # noqa: B902 (SystemExit and KeyboardInterrupt are failures too)
        with open(script + ".err", "w", encoding="utf-8") as f:
            f.write(traceback.format_exc())
        continue
    for suffix, text in outputs.items():
        with open(script + suffix, "w", encoding="utf-8") as f:
            f.write(text)
