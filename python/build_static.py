"""Copies the lab's release build (../dist, from `trunk build --release`) into the package:
the wasm-bindgen glue as a plain script body, the module, the stylesheet, the request's JSON
Schema, and the tokenizer module (its no-modules script and its module: a model's
`tokenizer.json`, for `show(model=...)`). Run before `pip install ./python` and `make wheel`
(the README's set-up does).

    python3 python/build_static.py [dist]
"""
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
STATIC = HERE / "attention_lab" / "static"


def main(dist: Path) -> None:
    index = (dist / "index.html").read_text(encoding="utf-8")
    glue = re.search(r"from '\./(attention-lab-[0-9a-f]+\.js)'", index)
    css = re.search(r'href="\./(main-[0-9a-f]+\.css)"', index)
    if not glue or not css:
        sys.exit(f"{dist}/index.html is not the lab's release build: run `trunk build --release`")
    script = (dist / glue.group(1)).read_text(encoding="utf-8")
    # An ES module made into the body of one inline module script: its exports are dropped
    # (the page calls __wbg_init itself).
    script = re.sub(r"^export \{[^}]*\};?\s*$", "", script, flags=re.M)
    script = re.sub(r"^export (class|function|const|let|async function) ", r"\1 ", script, flags=re.M)
    if re.search(r"^\s*(import|export)\b", script, flags=re.M) or "</script" in script:
        sys.exit("the glue cannot be inlined: it imports, exports or closes a script")
    STATIC.mkdir(parents=True, exist_ok=True)
    (STATIC / "lab.js").write_text(script, encoding="utf-8")
    shutil.copyfile(dist / glue.group(1).replace(".js", "_bg.wasm"), STATIC / "lab_bg.wasm")
    shutil.copyfile(dist / css.group(1), STATIC / "lab.css")
    # The request's JSON Schema: the package checks a cell's keywords against it.
    shutil.copyfile(dist / "request.schema.json", STATIC / "request.schema.json")
    # The tokenizer module, carried inline by a page that shows a model (it has no address to
    # load it from): a classic script that declares `wasm_bindgen`, and its module.
    tokenizer = (dist / "attention-tokenizer.js").read_text(encoding="utf-8")
    if "</script" in tokenizer or not tokenizer.startswith("let wasm_bindgen"):
        sys.exit("the tokenizer module's script cannot be inlined")
    (STATIC / "tokenizer.js").write_text(tokenizer, encoding="utf-8")
    shutil.copyfile(dist / "attention-tokenizer_bg.wasm", STATIC / "tokenizer_bg.wasm")
    print(
        "python/attention_lab/static: lab.js, lab_bg.wasm, lab.css, request.schema.json, "
        f"tokenizer.js, tokenizer_bg.wasm from {dist}"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent / "dist")
