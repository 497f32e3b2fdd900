"""Every notebook in notebooks/ runs top to bottom (nbclient) and saves its figures as files.

A notebook saves its figures under ``figures/`` beside itself, so a reader can look at them without
Jupyter (the committed ``notebooks/figures/*.png``; regenerate them with
``jupyter nbconvert --execute --inplace`` or by running the notebook). The test runs each notebook
in a temporary folder, so running the tests never rewrites tracked files, and checks that every
figure file the notebook names was written and is a non-empty PNG. Each notebook gets 300 s.

Every figure a notebook saves is checked at its ``savefig`` (axis labels, a legend where more than
one line is drawn: ``tests/figure_checks.py``), and every figure shown in the stored outputs has a
caption (the cell's ``mystnb.figure.caption``, which the documentation site prints under it).
"""

import json

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

# run before the notebook: records what every saved figure lacks
_PROBE = (Path(__file__).resolve().parent / "figure_checks.py").read_text(encoding="utf-8") + """
import matplotlib.figure as _mf
_FIGCHECK = []
_orig_savefig = _mf.Figure.savefig
def _checked_savefig(self, fname, *a, **k):
    _FIGCHECK.append([str(fname), figure_problems(self)])
    return _orig_savefig(self, fname, *a, **k)
_mf.Figure.savefig = _checked_savefig
"""


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_stored_figures_have_captions(path):
    """The committed outputs are what the documentation shows: each figure there has a caption."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    shown = 0
    for i, c in enumerate(nb["cells"]):
        if c["cell_type"] != "code":
            continue
        images = [o for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
        if images:
            shown += len(images)
            caption = c.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("caption", "")
            assert len(caption.split()) >= 6, f"{path.name} cell {i}: a figure without a caption"
            assert len(images) == 1, f"{path.name} cell {i}: one figure per cell, so each has its own caption"
    assert shown, (f"{path.name}: no figure in the stored outputs: store them with "
                   f"`python3 notebooks/store_outputs.py {path.name}`")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(_PROBE))
    nb.cells.append(nbformat.v4.new_code_cell("import json as _j; print('FIGCHECK' + _j.dumps(_FIGCHECK))"))
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    checked = json.loads("".join(o.get("text", "") for o in nb.cells[-1].outputs).split("FIGCHECK", 1)[1])
    assert checked, f"{path.name} saved no figure"
    bad = {name: problems for name, problems in checked if problems}
    assert not bad, f"{path.name}: figures lacking labels or legends: {bad}"
    source = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    written = sorted((tmp_path / "figures").glob("*.png")) if (tmp_path / "figures").is_dir() else []
    assert written, f"{path.name} saved no figure under figures/"
    for png in written:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 1000, png.name
    for name in set(re.findall(r"figures/([\w.\-]+\.png)", source)):
        assert (tmp_path / "figures" / name).is_file(), f"{path.name} names figures/{name} but did not write it"
