"""Every notebook in notebooks/ runs top to bottom (nbclient) and saves its figures as files.

A notebook saves its figures under ``figures/`` beside itself, so a reader can look at them without
Jupyter (the committed ``notebooks/figures/*.png``; regenerate them with
``jupyter nbconvert --execute --inplace`` or by running the notebook). The test runs each notebook
in a temporary folder, so running the tests never rewrites tracked files, and checks that every
figure file the notebook names was written and is a non-empty PNG. Each notebook gets 300 s.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    source = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    written = sorted((tmp_path / "figures").glob("*.png")) if (tmp_path / "figures").is_dir() else []
    assert written, f"{path.name} saved no figure under figures/"
    for png in written:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 1000, png.name
    for name in set(re.findall(r"figures/([\w.\-]+\.png)", source)):
        assert (tmp_path / "figures" / name).is_file(), f"{path.name} names figures/{name} but did not write it"
