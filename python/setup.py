"""The package is the lab's built site and a little Python: building it without the site (`pip
install ./python` on a fresh checkout) stops with what to run, instead of installing a package
whose every page would be empty. The metadata is pyproject.toml's."""
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

STATIC = Path(__file__).resolve().parent / "attention_lab" / "static"
# What python/build_static.py copies from the lab's release build.
BUILT = ["lab.js", "lab_bg.wasm", "lab.css", "request.schema.json", "tokenizer.js", "tokenizer_bg.wasm"]


class BuildWithTheLab(build_py):
    def run(self):
        missing = [name for name in BUILT if not (STATIC / name).is_file()]
        if missing:
            raise SystemExit(
                "attention_lab: the lab's build is not in the package (missing "
                + ", ".join(f"attention_lab/static/{name}" for name in missing)
                + "). Build it first: `trunk build --release && python3 python/build_static.py` "
                "from the repository's root (or `make wheel` for a wheel that installs anywhere)."
            )
        super().run()


setup(cmdclass={"build_py": BuildWithTheLab})
