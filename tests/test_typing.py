"""The public API type-checks: mypy accepts typed use of it and rejects wrong use (``py.typed`` is shipped)."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _mypy(path: Path, cache: Path) -> tuple[str, int]:
    api = pytest.importorskip("mypy.api", reason="mypy is in the test extra: pip install -e '.[test]'")
    out, err, status = api.run([str(path), "--config-file", str(ROOT / "pyproject.toml"),
                                "--cache-dir", str(cache), "--no-error-summary", "--show-error-codes"])
    return out + err, status


def test_py_typed_is_shipped():
    assert (ROOT / "dpverify" / "py.typed").is_file()
    import tomllib

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in conf["tool"]["setuptools"]["package-data"]["dpverify"]


def test_public_api_type_checks(tmp_path):
    text, status = _mypy(HERE / "typing" / "usage_ok.py", tmp_path / "cache")
    assert status == 0, text
    text, status = _mypy(HERE / "typing" / "usage_bad.py", tmp_path / "cache")
    errors = [ln for ln in text.splitlines() if ": error:" in ln]
    assert status == 1 and len(errors) >= 4, text  # one per wrong line (a line may earn two)
    assert {int(ln.split(":")[1]) for ln in errors} == {8, 9, 10, 11}, text
