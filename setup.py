"""Everything is configured in pyproject.toml (the proof documents ship as package data:
``dpverify/<room>/proofs/*.md``, see ``[tool.setuptools.package-data]``)."""

from setuptools import setup

setup()
