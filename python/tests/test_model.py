"""attention_lab.show(model=...): a Hugging Face folder (or a transformers model saved to one) sent
to the widget as its files, which the lab's page opens and runs; every mistake named before
anything is sent.

    pytest python/tests
"""
import json
import shutil
import struct
from pathlib import Path

import pytest

import attention_lab

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "hf"


def test_a_folder_is_sent_as_its_files_with_the_tokenizer_module():
    widget = attention_lab.show(model=FIXTURES / "qwen2", text="The cat sat.", lang="zh")
    files = widget.model["files"]
    assert widget.model["name"] == "qwen2"
    assert set(files) == {"config.json", "tokenizer.json", "tokenizer_config.json", "model.safetensors"}
    assert files["model.safetensors"] == (FIXTURES / "qwen2" / "model.safetensors").read_bytes()
    assert all(isinstance(b, bytes) for b in files.values()), "each file travels as a binary buffer"
    assert json.loads(widget.params) == {"sentence": "The cat sat."}
    assert widget.link == "?embed=1&panels=sentence,model-view,weights,head-view,next-token,generate&lang=zh"
    assert widget.data == b"", "no attention of one's own"
    # The page carries the tokenizer module (it has no address to load it from) and waits for
    # the widget's message.
    assert "window.__attentionLabTokenizerModule" in widget.shell and "__wbg_init" in widget.shell
    assert "__ATTENTION_LAB_LINK__" in widget.shell and "__ATTENTION_LAB_GIVEN__" not in widget.shell
    # The attention widget's page stays without it.
    assert "__attentionLabTokenizerModule" not in attention_lab.show([[1.0]], ["a"]).shell


def test_a_sharded_folder_sends_its_index_and_every_shard():
    widget = attention_lab.show(model=str(FIXTURES / "llama"))
    assert sorted(widget.model["files"]) == [
        "config.json",
        "model-00001-of-00004.safetensors",
        "model-00002-of-00004.safetensors",
        "model-00003-of-00004.safetensors",
        "model-00004-of-00004.safetensors",
        "model.safetensors.index.json",
        "tokenizer.json",
        "tokenizer_config.json",
    ]


class FakeTransformersModel:
    """What the package reads of a transformers model and its tokenizer: save_pretrained."""

    def __init__(self, folder, name_or_path="org/tiny-qwen"):
        self.folder = folder
        self.config = type("Config", (), {"name_or_path": name_or_path, "model_type": "qwen2"})()

    def save_pretrained(self, target, **options):
        assert options.get("safe_serialization") is True, "safetensors, never pickles"
        for name in ("config.json", "model.safetensors"):
            shutil.copy(self.folder / name, Path(target) / name)


class FakeTokenizer:
    def __init__(self, folder):
        self.folder = folder

    def save_pretrained(self, target):
        for name in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copy(self.folder / name, Path(target) / name)


def test_a_transformers_model_is_saved_and_sent_with_its_tokenizer():
    folder = FIXTURES / "qwen2"
    widget = attention_lab.show(model=FakeTransformersModel(folder), tokenizer=FakeTokenizer(folder), text="hi")
    assert widget.model["name"] == "tiny-qwen"
    assert widget.model["files"]["tokenizer.json"] == (folder / "tokenizer.json").read_bytes()
    assert json.loads(widget.params) == {"sentence": "hi"}


def big_header(parameters):
    header = json.dumps({"w": {"dtype": "BF16", "shape": [parameters], "data_offsets": [0, 0]}}).encode()
    return struct.pack("<Q", len(header)) + header


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda d: (d / "tokenizer.json").unlink(), r"tokenizer\.json is missing"),
        (lambda d: ((d / "tokenizer.json").unlink(), (d / "vocab.json").write_text("{}")), r"a fast tokenizer's tokenizer\.json"),
        (lambda d: (d / "model.safetensors").unlink(), r"model\.safetensors \(or model\.safetensors\.index\.json and its shards\) is missing"),
        (lambda d: (d / "config.json").unlink(), r"config\.json is missing"),
        (lambda d: (d / "model.safetensors").write_bytes(big_header(1_500_000_000)), r"1,500,000,000 parameters, more than the 1,000,000,000"),
        (lambda d: (d / "model.safetensors").write_bytes(b"\x01"), r"model\.safetensors: not safetensors"),
    ],
)
def test_a_folder_the_lab_cannot_open_is_refused_naming_the_file(tmp_path, make, message):
    folder = tmp_path / "m"
    shutil.copytree(FIXTURES / "qwen2", folder)
    make(folder)
    with pytest.raises(ValueError, match=message):
        attention_lab.show(model=folder)


def test_a_model_is_shown_alone_and_its_keywords_go_with_it():
    with pytest.raises(TypeError, match="not both"):
        attention_lab.show([[1.0]], ["a"], model=FIXTURES / "qwen2")
    with pytest.raises(TypeError, match="tokenizer: goes with model="):
        attention_lab.show([[1.0]], ["a"], tokenizer=object())
    with pytest.raises(TypeError, match="needs its tokenizer"):
        attention_lab.show(model=FakeTransformersModel(FIXTURES / "qwen2"))
    with pytest.raises(TypeError, match="a Hugging Face folder's path, or a transformers model"):
        attention_lab.show(model=42)
    with pytest.raises(ValueError, match="is not a folder"):
        attention_lab.show(model=FIXTURES / "nothing-here")
    with pytest.raises(TypeError, match="'temprature' is not a parameter"):
        attention_lab.show(model=FIXTURES / "qwen2", temprature=2)


def test_building_the_package_without_the_lab_stops_with_what_to_run(tmp_path):
    """`pip install ./python` on a checkout where the lab is not built: setup.py's build step
    stops, naming the missing files and the commands, instead of installing an empty package."""
    import subprocess
    import sys

    package = Path(__file__).resolve().parents[1]
    copy = tmp_path / "python"
    shutil.copytree(
        package,
        copy,
        ignore=shutil.ignore_patterns("static", "build", "dist", "*.egg-info", "__pycache__", "tests"),
    )
    result = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py"], cwd=copy, capture_output=True, text=True
    )
    assert result.returncode != 0
    said = result.stdout + result.stderr
    assert "attention_lab/static/lab_bg.wasm" in said and "attention_lab/static/tokenizer_bg.wasm" in said
    assert "trunk build --release && python3 python/build_static.py" in said and "make wheel" in said


def test_a_saved_page_says_a_model_is_for_show(tmp_path):
    with pytest.raises(TypeError, match=r"show\(model=\.\.\.\) runs a model"):
        attention_lab.save_html(str(tmp_path / "m.html"), model=FIXTURES / "qwen2")
