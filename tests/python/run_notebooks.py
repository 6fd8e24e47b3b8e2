"""The notebook test's Python half (scripts/suite.sh notebook):

1. a fresh venv (--system-site-packages: Debian's torch, numpy, ipykernel) with the
   built wheel installed, as a learner would (pip, no network, no dependencies fetched);
2. the Python unit tests (tests/python/test_*.py) run by that venv's Python (pytest,
   from Debian, writes their JUnit report: --junit PATH);
3. every examples/*.ipynb and the README's "In a notebook" demo, with the checks of
   notebook_checks.py appended, executed by nbclient in that venv's kernel, then
   converted to HTML by nbconvert: build/python/run/<name>.{ipynb,html}.

tests/python/notebooks.test.mjs then opens the HTML in Chromium, offline.
Usage: /usr/bin/python3 tests/python/run_notebooks.py [--wheel PATH] [--junit PATH]
"""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "build", "python")
VENV = os.path.join(OUT, "venv")
RUN = os.path.join(OUT, "run")
sys.path.insert(0, os.path.dirname(__file__))
from notebook_checks import CHECKS  # noqa: E402


def sh(*args, **kw):
    subprocess.run(args, check=True, **kw)


def make_venv(wheel):
    shutil.rmtree(VENV, ignore_errors=True)
    sh("/usr/bin/python3", "-m", "venv", "--system-site-packages", VENV)
    py = os.path.join(VENV, "bin", "python")
    sh(py, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--disable-pip-version-check", wheel)
    # The kernel notebooks run in is this venv's Python (its own kernelspec, found first).
    sh(py, "-Xfrozen_modules=off", "-m", "ipykernel", "install", "--sys-prefix", "--name", "python3",
       stdout=subprocess.DEVNULL)
    return py


def readme_demo():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    section = text.split("## In a notebook", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def notebooks():
    import nbformat
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "*.ipynb"))):
        yield os.path.basename(path), nbformat.read(path, as_version=4)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(readme_demo())]
    nb.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    yield "readme-demo.ipynb", nb


def main():
    wheel = sys.argv[sys.argv.index("--wheel") + 1] if "--wheel" in sys.argv else \
        sorted(glob.glob(os.path.join(OUT, "attnviz-*-py3-none-any.whl")))[-1]
    t0 = time.time()
    py = make_venv(wheel)
    print("venv + wheel: %.1f s" % (time.time() - t0), flush=True)
    # The venv's Python runs what follows: it sees the installed package, not python/.
    env = dict(os.environ, PYDEVD_DISABLE_FILE_VALIDATION="1", JUPYTER_PATH=os.path.join(VENV, "share", "jupyter"))
    junit = sys.argv[sys.argv.index("--junit") + 1] if "--junit" in sys.argv else os.path.join(OUT, "python-tests.xml")
    tests = subprocess.run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml=" + os.path.abspath(junit),
                            os.path.dirname(__file__)], env=env, cwd=ROOT)
    print("unit tests: %.1f s (pytest exit %d)" % (time.time() - t0, tests.returncode), flush=True)
    sh(py, "-c", "import runpy; runpy.run_path(%r, run_name='execute')" % os.path.abspath(__file__),
       env=env, cwd=ROOT)
    print("notebooks executed and converted: %.1f s" % (time.time() - t0), flush=True)
    return tests.returncode


def execute_all():
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter
    shutil.rmtree(RUN, ignore_errors=True)
    os.makedirs(RUN)
    import attnviz
    assert os.path.dirname(attnviz.__file__).startswith(VENV), attnviz.__file__  # the installed wheel
    for name, nb in notebooks():
        nb.cells.append(nbformat.v4.new_code_cell(CHECKS[name]))
        t = time.time()
        NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": RUN}}).execute()
        nbformat.write(nb, os.path.join(RUN, name))
        body, _ = HTMLExporter().from_notebook_node(nb)
        with open(os.path.join(RUN, name.replace(".ipynb", ".html")), "w", encoding="utf-8") as f:
            f.write(body)
        print("  %s: %.1f s, %d KB of HTML" % (name, time.time() - t, len(body) // 1024), flush=True)


if __name__ == "__main__":
    sys.exit(main())
elif __name__ == "execute":
    execute_all()
