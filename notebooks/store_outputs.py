"""Run notebooks top to bottom in this folder and save them with their outputs (and their figures).

The documentation site shows the notebooks with the outputs stored in them (it does not run them),
and ``tests/test_notebooks.py`` requires every figure in the stored outputs to have a caption (the
cell's ``metadata.mystnb.figure.caption``).  After changing a notebook, store its outputs again:

    python3 notebooks/store_outputs.py                       # every notebook
    python3 notebooks/store_outputs.py rr_paper_figures.ipynb

Each notebook gets 900 s; figures are written to ``notebooks/figures/`` as the notebook says.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def store(path: Path, timeout: int = 900) -> float:
    """Execute ``path`` in its folder and write it back with its outputs; return the seconds taken."""
    import nbclient
    import nbformat

    t = time.perf_counter()
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    nbformat.write(nb, path)
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("notebooks", nargs="*", help="notebook file names in notebooks/ (default: all)")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per cell (default 900)")
    args = ap.parse_args(argv)
    paths = [HERE / n for n in args.notebooks] or sorted(HERE.glob("*.ipynb"))
    for p in paths:
        if not p.is_file():
            print(f"store_outputs: error: no notebook {str(p)!r}", file=sys.stderr)
            return 2
    for p in paths:
        print(f"{p.name}: {store(p, args.timeout):.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
