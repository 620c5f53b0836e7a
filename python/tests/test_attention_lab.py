"""attention_lab turns every form a notebook holds attention in into the lab's JSON, names every
mistake, and writes a page that carries the lab and the numbers.

    pytest python/tests
"""
import base64
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

import attention_lab
from attention_lab import payload

rng = np.random.default_rng(7)


def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


ATTENTION = softmax(rng.normal(size=(2, 3, 5, 5))).astype(np.float32)
TOKENS = ["the", "cat", "sat", "猫", "mat"]


class FakeTensor:
    """What the package reads of a PyTorch tensor: detach, float, cpu, numpy."""

    def __init__(self, array):
        self.array = np.asarray(array)
        self.shape = self.array.shape

    def detach(self):
        return self

    def float(self):
        return FakeTensor(self.array.astype(np.float32))

    def cpu(self):
        return self

    def numpy(self):
        return self.array


class FakeCache(dict):
    """TransformerLens's ActivationCache, as far as the package reads it."""


def test_every_input_form_gives_the_same_numbers():
    want = ATTENTION.tolist()
    forms = [
        ATTENTION,
        ATTENTION.tolist(),
        FakeTensor(ATTENTION.astype(np.float64)),
        # Hugging Face: a tuple of [batch, heads, q, k] per layer, and the same stacked
        # (np.stack(outputs.attentions): [layers, batch, heads, q, k]).
        tuple(FakeTensor(layer[np.newaxis]) for layer in ATTENTION),
        np.stack([layer[np.newaxis] for layer in ATTENTION]),
        FakeCache({f"blocks.{l}.attn.hook_pattern": ATTENTION[l][np.newaxis] for l in (1, 0)}
                  | {"blocks.0.hook_resid_pre": np.zeros((1, 5, 8))}),
    ]
    for form in forms:
        data = payload(form, TOKENS)
        assert data["attention"] == want, type(form)
        assert data["tokens"] == TOKENS
    # Lower ranks: one head, one layer.
    assert payload(ATTENTION[1, 2], TOKENS)["attention"] == [[ATTENTION[1, 2].tolist()]]
    assert payload(ATTENTION[1], TOKENS)["attention"] == [ATTENTION[1].tolist()]
    # The batch asked for.
    two = tuple(np.stack([layer, layer[::-1]]) for layer in ATTENTION)
    assert payload(two, TOKENS, batch=1)["attention"] == ATTENTION[:, ::-1].tolist()
    assert payload(np.stack(two), TOKENS, batch=1)["attention"] == ATTENTION[:, ::-1].tolist()
    # One layer of outputs.attentions with a batch (not in a tuple): with batch=, a batch of
    # examples of one layer; without, four dimensions are layers (the lab says both readings).
    layer = np.stack([ATTENTION[0], ATTENTION[1]])  # [batch 2, heads, q, k]
    assert payload(layer, TOKENS, batch=1)["attention"] == [ATTENTION[1].tolist()]
    assert payload(layer, TOKENS)["attention"] == ATTENTION.tolist()


def test_q_k_and_v_take_a_batch_as_attention_does():
    q, k, v = (rng.normal(size=(3, 2, 4, 5, 2)).astype(np.float32) for _ in range(3))  # [layers, batch, ...]
    data = payload(q=q, k=k, v=v, tokens=TOKENS, batch=1)
    assert data["q"] == q[:, 1].tolist() and data["k"] == k[:, 1].tolist() and data["v"] == v[:, 1].tolist()
    per_layer = payload(q=tuple(q), k=tuple(k), tokens=TOKENS)
    assert per_layer["q"] == q[:, 0].tolist()


def test_grouped_query_k_and_v_pass_to_the_lab():
    q = rng.normal(size=(1, 4, 5, 2)).astype(np.float32)
    k, v = (rng.normal(size=(1, 2, 5, 2)).astype(np.float32) for _ in range(2))
    data = payload(q=q, k=k, v=v, tokens=TOKENS)
    assert np.array(data["k"]).shape == (1, 2, 5, 2)
    with pytest.raises(ValueError, match="grouped-query attention"):
        payload(q=np.ones((1, 3, 5, 2)), k=np.ones((1, 2, 5, 2)), tokens=TOKENS)


def test_q_k_and_v():
    q, k, v = (rng.normal(size=(3, 5, 4)).astype(np.float32) for _ in range(3))
    data = payload(q=q, k=FakeTensor(k), v=v.tolist(), tokens=TOKENS)
    assert data["q"] == [q.tolist()] and data["k"] == [k.tolist()] and data["v"] == [v.tolist()]
    cross = payload(q=q, k=rng.normal(size=(3, 6, 4)), key_tokens=list("abcdef"), tokens=TOKENS)
    assert cross["key_tokens"] == list("abcdef")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: payload(np.zeros((1, 1, 1, 1, 2, 2)), ["a", "b"]), r"6 dimensions"),
        (lambda: payload(np.zeros((1, 2, 1, 2, 2)), ["a", "b"], batch=2), r"batch 2, but it has 2 examples \(0 to 1\)"),
        (lambda: payload(np.zeros((2, 1, 2, 2)), ["a", "b"], batch=2), r"\[batch, heads, rows, cols\] \[2, 1, 2, 2\]: batch 2"),
        (lambda: payload(np.eye(2), ["a", "b"], batch=1), r"no batch axis"),
        (lambda: payload(np.array([[1.0, np.nan], [0, 1]]), ["a", "b"]), r"attention\[0, 1\] is nan"),
        (lambda: payload(np.eye(2), ["a"]), r"tokens has 1 entries where the tensors have 2"),
        (lambda: payload(np.eye(2)[:, :0], []), r"empty dimension"),
        (lambda: payload(np.ones((2, 3)) / 3, ["a", "b"]), r"give key_tokens"),
        (lambda: payload(np.eye(2), ["a", "b"], q=np.eye(2), k=np.eye(2)), r"not both"),
        (lambda: payload(q=np.eye(2)), r"give attention"),
        (lambda: payload(q=np.ones((2, 3)), k=np.ones((2, 4))), r"does not fit k"),
        (lambda: payload(q=np.ones((2, 3)), k=np.ones((2, 3)), v=np.ones((3, 3))), r"one value per key"),
        (lambda: payload(np.full((4097, 1), 1.0), None, key_tokens=["k"]), r"at most 4096"),
        (lambda: payload(np.ones((64, 8, 256, 256)) / 256), r"budget"),
        (lambda: payload(tuple(np.ones((1, 2, 3, 3)) for _ in range(1)) + (np.ones((1, 2, 4, 4)),)), r"shapes differ"),
        (lambda: payload((np.ones((2, 3, 3)),)), r"\[batch, heads, queries, keys\]"),
        (lambda: payload(tuple(np.ones((1, 2, 3, 3)) for _ in range(2)), batch=3), r"batch 3, but it has 1 examples"),
        (lambda: payload("not numbers"), r"not an array of numbers"),
        (lambda: attention_lab.html(np.eye(2), ["a", "b"], lang="fr"), r'lang: "en" or "zh"'),
    ],
)
def test_every_mistake_is_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_tokens_default_to_numbers():
    assert payload(np.eye(3))["tokens"] == ["0", "1", "2"]


def test_the_page_carries_the_lab_and_the_numbers(tmp_path):
    path = attention_lab.save_html(
        str(tmp_path / "attention.html"), ATTENTION, TOKENS, panels=["weights", "all-heads"], lang="zh",
        mask="causal",
    )
    text = open(path, encoding="utf-8").read()
    assert text.startswith("<!DOCTYPE html>")
    assert "__wbg_init" in text and len(text) > 1_000_000, "the lab's wasm is inline"
    assert 'window.attentionLabLink = "?embed=1&panels=weights,all-heads&lang=zh"' in text
    assert '{"mask": {"kind": "causal"}}' in text
    # The numbers travel as the bytes of an .npz, inline, read by the lab's own reader.
    inline = re.search(r'\{data: Object\.assign\(\{format: "npz", bytes: base64\("([A-Za-z0-9+/=]+)"\)\}, \{\}\), params: (.*)\};', text)
    assert inline, "the data is inline as .npz bytes"
    with np.load(io.BytesIO(base64.b64decode(inline.group(1)))) as npz:
        assert np.array_equal(npz["attention"], ATTENTION)
        assert npz["tokens"].tolist() == TOKENS
    assert json.loads(inline.group(2)) == {"mask": {"kind": "causal"}}
    # A token that would close the script never appears as text (it is inside the bytes), and
    # the parameters' JSON is escaped.
    text = attention_lab.html(np.eye(1), ["</script>"], sentence="</script>")
    assert "</script>\"" not in text and "<\\/script>" in text


def test_the_widget_sends_the_numbers_as_npz_bytes():
    widget = attention_lab.show(ATTENTION, TOKENS, panels="weights", temperature=2, height=500)
    assert "__wbg_init" in widget.shell, "the page the widget shows carries the lab"
    esm = (Path(attention_lab.__file__).parent / "widget.js").read_text(encoding="utf-8")
    assert "export default" in esm and "return () =>" in esm, "render returns its cleanup"
    assert isinstance(widget.data, bytes)
    with np.load(io.BytesIO(widget.data)) as npz:
        assert np.array_equal(npz["attention"], ATTENTION)
        assert npz["tokens"].tolist() == TOKENS
    assert json.loads(widget.params) == {"temperature": 2}
    assert widget.link == "?embed=1&panels=weights" and widget.height == 500


def test_an_unknown_keyword_is_named_with_the_closest_field():
    with pytest.raises(TypeError, match=r"'temprature' is not a parameter of the lab; did you mean temperature\?"):
        attention_lab.html(ATTENTION, TOKENS, temprature=2)
    with pytest.raises(TypeError, match=r"'n_head' .*did you mean n_heads\?"):
        attention_lab.show(ATTENTION, TOKENS, n_head=2)
    with pytest.raises(TypeError, match=r"'zzz' is not a parameter of the lab; the lab takes "):
        attention_lab.html(ATTENTION, TOKENS, zzz=1)


def test_a_value_of_the_wrong_type_is_refused_before_anything_is_drawn():
    with pytest.raises(TypeError, match=r"temperature: expected number, not string '2'"):
        attention_lab.html(ATTENTION, TOKENS, temperature="2")
    with pytest.raises(TypeError, match=r"mask: expected object"):
        attention_lab.html(ATTENTION, TOKENS, mask=3)
    with pytest.raises(TypeError, match=r"qk_norm: expected boolean"):
        attention_lab.show(ATTENTION, TOKENS, qk_norm=1)
    with pytest.raises(TypeError, match=r"theme: one of 'auto', 'light', 'dark'"):
        attention_lab.show(ATTENTION, TOKENS, theme="blue")
    # NumPy's numbers are numbers; a mask may be named by its kind.
    text = attention_lab.html(ATTENTION, TOKENS, temperature=np.float32(2), head=np.int64(2), mask="causal")
    assert '"temperature": 2.0' in text and '"head": 2' in text


def test_the_keywords_are_the_labs_schema():
    schema = json.loads((Path(attention_lab.__file__).parent / "static" / "request.schema.json").read_text("utf-8"))
    assert {"sentence", "temperature", "mask", "n_heads", "qk_norm"} <= set(schema["properties"])
    assert schema["additionalProperties"] is False


def test_special_tokens_hidden_and_means_go_to_the_page():
    tokens = ["[CLS]", "a", "b", "[SEP]"]
    attention = np.full((2, 2, 4, 4), 0.25, dtype=np.float32)
    page = attention_lab.html(attention, tokens, hide_special=True, mean="heads")
    assert '"hide_special": true' in page.replace('":true', '": true') and '"mean": "heads"' in page.replace('":"', '": "')
    with pytest.raises(ValueError, match=r'mean: "heads" or "layers"'):
        attention_lab.html(attention, tokens, mean="rows")
    with pytest.raises(TypeError, match="hide_special"):
        attention_lab.html(attention, tokens, hide_special="yes")
