"""Build hook: ship the top-level ``proofs/`` folder inside the wheel as ``dpverify/_proofs``.

Everything else is configured in pyproject.toml.  In a source checkout the library reads
``proofs/`` beside the package; installed from a wheel it reads ``dpverify/_proofs``
(:func:`dpverify.proofdocs.proofs_root`), so ``dpverify report`` links the proof documents either way.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyWithProofs(build_py):
    def run(self):
        super().run()
        src = Path(__file__).resolve().parent / "proofs"
        if src.is_dir() and not getattr(self, "editable_mode", False):
            shutil.copytree(src, Path(self.build_lib) / "dpverify" / "_proofs", dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildPyWithProofs})
