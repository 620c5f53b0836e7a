"""Builds the notebook package as a wheel with the lab's release build inside (`make wheel`):
copies ../dist in (build_static.py), builds python/dist/attention_lab-*.whl with pip, and checks
that the wheel holds the lab, so that `pip install` of it needs no Rust.

    trunk build --release && python3 python/build_wheel.py
"""
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import build_static

HERE = Path(__file__).resolve().parent
OUT = HERE / "dist"
BUILT = ["lab.js", "lab_bg.wasm", "lab.css", "request.schema.json", "tokenizer.js", "tokenizer_bg.wasm"]


def main() -> None:
    build_static.main(HERE.parent / "dist")
    shutil.rmtree(OUT, ignore_errors=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps",
         "--wheel-dir", str(OUT), str(HERE)],
        check=True,
    )
    wheels = sorted(OUT.glob("attention_lab-*.whl"))
    if len(wheels) != 1:
        sys.exit(f"expected one wheel in {OUT}, found {[w.name for w in wheels]}")
    names = zipfile.ZipFile(wheels[0]).namelist()
    missing = [name for name in BUILT if f"attention_lab/static/{name}" not in names]
    if missing:
        sys.exit(f"{wheels[0].name} lacks the lab's build: {missing}")
    print(wheels[0])


if __name__ == "__main__":
    main()
