"""Packaging step that pyproject.toml cannot express: ship the chapters and the data registry.

The book keeps its chapters in ``notebooks/`` and the registry in ``data/registry.json``
(the repository layout the book and its tests use). A wheel has no repository beside
it, so ``build_py`` copies them into the built package, as

* ``fireeval/book/notebooks_shipped/<chapter>.md`` (found by ``fireeval.book.notebooks``), and
* ``fireeval/datasets/registry.json`` (found by ``fireeval.datasets``).

Nothing is copied in the source tree: an editable install (``pip install -e .``) reads
them from the repository. ``MANIFEST.in`` puts them in the sdist, from which
``python -m build`` builds the wheel.
"""
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent

# (source glob relative to the repository, destination folder relative to the built package root)
SHIPPED = [("notebooks/*.md", "fireeval/book/notebooks_shipped"), ("data/registry.json", "fireeval/datasets")]


class BuildPyWithChapters(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for pattern, dest in SHIPPED:
            files = sorted(HERE.glob(pattern))
            if not files:
                raise FileNotFoundError(f"setup.py: nothing matches {pattern}; the package would ship without it")
            target = Path(self.build_lib) / dest
            self.mkpath(str(target))
            for src in files:
                self.copy_file(str(src), str(target / src.name))


setup(cmdclass={"build_py": BuildPyWithChapters})
