"""Trains the lab's small bilingual character-level GPT-2, measures it, and writes it out.

    tools/train/run.sh              # installs what it needs, trains, writes assets/gpt2/
    .venv/bin/python train.py --steps 200 --out /tmp/model   # a quick try

Everything is seeded: the same command on the same machine gives the same files. Outputs, in
--out: model.safetensors (Hugging Face GPT-2 names), config.json, vocab.json, metrics.json (what
MODEL_CARD.md reports); in --fixtures: the logits the Rust forward pass must reproduce.
"""

import argparse
import collections
import json
import math
import pickle
import re
import time
import unicodedata
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax
from safetensors.numpy import save_file

import data
import hybrid
import llama
import model
from probes import ENGLISH_PASSAGE, CHINESE_PASSAGE

UNK = "<unk>"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
# The architecture being trained: `model` (GPT-2) or `llama`; both have forward(params, ids, heads, collect).
net = model


def normalise(text):
    """What the lab feeds the model: full-width letters and digits as ASCII, runs of spaces and
    tabs as one space, at most two line breaks in a row."""
    text = "".join(
        unicodedata.normalize("NFKC", c) if "\uff10" <= c <= "\uff5a" and c.isalnum() else c for c in text
    )
    text = re.sub(r"[ \t\u3000]+", " ", text)
    return re.sub(r"\n{3,}", "\n\n", text)


def build_vocab(docs, size):
    """The `size - 1` most frequent characters of the training text, after <unk> (id 0)."""
    counts = collections.Counter()
    for _, doc in docs:
        counts.update(doc)
    chars = [c for c, _ in counts.most_common(size - 1)]
    return [UNK] + sorted(chars, key=lambda c: (-counts[c], c))


def encode(text, index):
    return np.array([index.get(c, 0) for c in text], np.int32)


def stream(docs, index):
    return encode("\n\n".join(d for _, d in docs), index)


class Batches:
    """Windows of natural text (half English, half Chinese) and, for a share of the rows, a random
    string repeated until the window is full: copying it again is what induction heads learn."""

    def __init__(self, streams, vocab_size, context, batch, synthetic, seed):
        self.streams, self.context, self.batch, self.synthetic = streams, context, batch, synthetic
        self.rng = np.random.default_rng(seed)
        # Random strings are drawn from the 1,000 most frequent characters (not <unk> or "\n").
        self.alphabet = np.arange(1, min(1001, vocab_size))

    def repeated(self):
        length = int(self.rng.integers(8, 41))
        pattern = self.rng.choice(self.alphabet, length)
        return np.resize(pattern, self.context + 1)

    def __next__(self):
        rows = []
        for _ in range(self.batch):
            if self.rng.random() < self.synthetic:
                rows.append(self.repeated())
            else:
                text = self.streams[int(self.rng.integers(len(self.streams)))]
                start = int(self.rng.integers(0, len(text) - self.context - 1))
                rows.append(text[start : start + self.context + 1])
        rows = np.stack(rows)
        return rows[:, :-1], rows[:, 1:]


def loss_fn(params, x, y, heads):
    logits = net.forward(params, x, heads)
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()


def windows(text, context, count, rng):
    """`count` windows of `context + 1` tokens from `text`, at random places (seeded)."""
    starts = rng.integers(0, len(text) - context - 1, count)
    return np.stack([text[s : s + context + 1] for s in starts])


def accuracy(params, rows, heads, k):
    """Top-k next-token accuracy over every position of `rows`."""
    logits = net.forward(params, jnp.asarray(rows[:, :-1]), heads)
    top = jnp.argsort(-logits, axis=-1)[..., :k]
    hits = (top == jnp.asarray(rows[:, 1:])[..., None]).any(-1)
    return float(hits.mean())


def head_scores(params, rows, heads, target):
    """Each head's mean attention weight on the key `target(i)` names, over queries i where it
    names one: [layers][heads]."""
    _, weights = net.forward(params, jnp.asarray(rows), heads, collect=True)
    seq = rows.shape[1]
    queries = [i for i in range(seq) if target(i) is not None]
    keys = [target(i) for i in queries]
    # A hybrid's linear layers have no softmax weights (None there).
    return [np.asarray(w[:, :, queries, keys].mean(axis=(0, 2))).round(4).tolist() if not isinstance(w, tuple) else None
            for w in weights]


def measure(params, vocab, index, held, heads, context, seed):
    """The quality floor's numbers, on text the model never trained on."""
    rng = np.random.default_rng(seed)
    results = {}
    for lang, k in (("en", 1), ("zh", 5)):
        by_source = collections.defaultdict(list)
        for source, doc in held[lang]:
            by_source[source].append((source, doc))
        results[f"{lang}_held_out_top{k}"] = accuracy(params, windows(stream(held[lang], index), context, 64, rng), heads, k)
        for source, docs in sorted(by_source.items()):
            text = stream(docs, index)
            if len(text) > context + 1:
                results[f"{lang}_{source}_top{k}"] = accuracy(params, windows(text, context, 32, rng), heads, k)
    for lang, passage in (("en", ENGLISH_PASSAGE), ("zh", CHINESE_PASSAGE)):
        ids = encode(normalise(passage), index)
        step = min(context, len(ids) - 1)
        hits = {1: 0.0, 5: 0.0}
        pieces = [ids[s : s + step + 1] for s in range(0, len(ids) - 1, step)]
        for piece in pieces:
            for k in hits:
                hits[k] += accuracy(params, piece[None, :], heads, k) * (len(piece) - 1)
        for k, total in hits.items():
            results[f"{lang}_probe_passage_top{k}"] = total / (len(ids) - 1)
    results["en_held_out_top5"] = accuracy(params, windows(stream(held["en"], index), context, 64, rng), heads, 5)
    results["zh_held_out_top1"] = accuracy(params, windows(stream(held["zh"], index), context, 64, rng), heads, 1)

    english = windows(stream(held["en"], index), context - 1, 32, rng)
    results["previous_token"] = head_scores(params, english, heads, lambda i: i - 1 if i >= 1 else None)
    # Induction: a random string of 30 characters, twice; in the second copy, the weight on the
    # token right after the earlier occurrence of the query's own token.
    strings = np.stack([np.resize(rng.choice(np.arange(1, 1001), 30), 60) for _ in range(32)])
    results["induction"] = head_scores(params, strings, heads, lambda i: i - 29 if i >= 30 else None)
    # An attention sink: the weight on the window's first character, from position 16 on.
    results["first_token"] = head_scores(params, english, heads, lambda i: 0 if i >= 16 else None)
    return results


def hf_config(args, vocab_size):
    """config.json as Hugging Face transformers reads it for this architecture."""
    if args.arch == "hybrid":
        return {
            "architectures": ["Qwen3NextForCausalLM"],
            "model_type": "qwen3_next",
            "vocab_size": vocab_size,
            "hidden_size": args.d,
            "intermediate_size": args.mlp,
            "num_hidden_layers": args.layers,
            "num_attention_heads": args.heads,
            "num_key_value_heads": args.kv_heads,
            "head_dim": args.d // args.heads,
            "layer_types": hybrid.layer_types(args.layers),
            "full_attention_interval": 4,
            "linear_num_key_heads": args.heads,
            "linear_num_value_heads": args.heads,
            "linear_key_head_dim": args.d // args.heads,
            "linear_value_head_dim": args.d // args.heads,
            "linear_conv_kernel_dim": hybrid.CONV,
            "partial_rotary_factor": hybrid.ROTARY,
            "hidden_act": "silu",
            "max_position_embeddings": args.context,
            "rms_norm_eps": hybrid.EPS,
            "rope_theta": hybrid.BASE,
            "rope_scaling": None,
            "attention_bias": False,
            "attention_dropout": 0.0,
            "num_experts": 0,
            "decoder_sparse_step": 1,
            "mlp_only_layers": [],
            "tie_word_embeddings": True,
            "bos_token_id": 0,
            "eos_token_id": 0,
            "torch_dtype": "float32",
        }
    if args.arch == "llama":
        return {
            "architectures": ["LlamaForCausalLM"],
            "model_type": "llama",
            "vocab_size": vocab_size,
            "hidden_size": args.d,
            "intermediate_size": args.mlp,
            "num_hidden_layers": args.layers,
            "num_attention_heads": args.heads,
            "num_key_value_heads": args.kv_heads,
            "head_dim": args.d // args.heads,
            "hidden_act": "silu",
            "max_position_embeddings": args.context,
            "rms_norm_eps": llama.EPS,
            "rope_theta": llama.BASE,
            "rope_scaling": None,
            "attention_bias": False,
            "attention_dropout": 0.0,
            "mlp_bias": False,
            "tie_word_embeddings": True,
            "bos_token_id": 0,
            "eos_token_id": 0,
            "torch_dtype": "float32",
            # The sink twin's gate (`self_attn.g_proj.weight`): not a field transformers' Llama
            # knows, which ignores the gate's weights; the lab reads both.
            **({"attention_output_gate": True} if args.output_gate else {}),
        }
    return {
        "architectures": ["GPT2LMHeadModel"],
        "model_type": "gpt2",
        "vocab_size": vocab_size,
        "n_positions": args.context,
        "n_ctx": args.context,
        "n_embd": args.d,
        "n_layer": args.layers,
        "n_head": args.heads,
        "n_inner": None,
        "activation_function": "gelu_new",
        "layer_norm_epsilon": model.EPS,
        "resid_pdrop": 0.0,
        "embd_pdrop": 0.0,
        "attn_pdrop": 0.0,
        "tie_word_embeddings": True,
        "bos_token_id": 0,
        "eos_token_id": 0,
    }


def export(params, vocab, args, out, metrics):
    """model.safetensors, config.json, vocab.json and fixtures.json into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    tensors = {name: np.asarray(value, np.float32) for name, value in params.items()}
    save_file(tensors, str(out / "model.safetensors"), metadata={"format": "pt"})
    config = hf_config(args, len(vocab))
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    (out / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False) + "\n", encoding="utf-8")
    # Fixtures: the logits of a few inputs, for a chosen set of tokens at every position, and the
    # attention weights of the first layer, as this framework computes them.
    index = {c: i for i, c in enumerate(vocab)}
    rng = np.random.default_rng(7)
    fixtures = []
    # The last one fills the context, so that the fixtures reach every position.
    for text in ("The cat sat on the mat because it was tired.", "猫坐在垫子上，因为它累了。",
                 "".join(vocab[i] for i in np.resize(rng.choice(np.arange(1, 300), 20), 40)),
                 normalise(ENGLISH_PASSAGE + " " + ENGLISH_PASSAGE)[: args.context]):
        ids = encode(normalise(text), index)
        logits, weights = net.forward(params, jnp.asarray(ids[None, :]), args.heads, collect=True)
        logits = np.asarray(logits[0])
        linear = None
        if isinstance(weights[0], tuple):
            # A hybrid: layer 0 is Gated DeltaNet (its β, α and output before the norm, per head
            # [heads, seq]); the weights checked are the first full layer's.
            beta, alpha, o = (np.asarray(w[0]) for w in weights[0])
            linear = {"beta": beta.T.round(6).tolist(), "alpha": alpha.T.round(6).tolist(),
                      "output": np.swapaxes(o, 0, 1).round(6).tolist()}
            full = [i for i, w in enumerate(weights) if not isinstance(w, tuple)]
            weights = [weights[i] for i in full]
        chosen = sorted(set(range(0, len(vocab), max(1, len(vocab) // 48))) | set(np.argsort(-logits, axis=-1)[:, :5].ravel().tolist()))
        fixture = {
            "text": text,
            "ids": ids.tolist(),
            "token_ids": chosen,
            "logits": logits[:, chosen].round(6).tolist(),
            "layer0_weights": np.asarray(weights[0][0]).round(6).tolist(),
        }
        if linear is not None:
            fixture["layer0_linear"] = linear
            fixture["weights_layer"] = full[0]
        n = len(ids)
        if n > 64:
            # A long input keeps a few positions (`rows`) spread over it, ends included: the
            # fixture stays small and still reaches RoPE's far positions.
            rows = sorted({0, 1, 2, n // 4, n // 2, 3 * n // 4, n - 2, n - 1} | set(range(0, n, 32)))
            fixture["rows"] = rows
            fixture["logits"] = [fixture["logits"][r] for r in rows]
            fixture["layer0_weights"] = [[head[r] for r in rows] for head in fixture["layer0_weights"]]
            if linear is not None:
                fixture["layer0_linear"] = {name: [[head[r] for r in rows] for head in value]
                                            for name, value in linear.items()}
        fixtures.append(fixture)
    args.fixtures.parent.mkdir(parents=True, exist_ok=True)
    args.fixtures.write_text(json.dumps({"fixtures": fixtures}, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--arch", choices=["gpt2", "llama", "hybrid"], default="gpt2",
                        help="gpt2: assets/gpt2; llama: assets/llama (RoPE, RMSNorm, SwiGLU, GQA), GPT-2's vocabulary; "
                        "hybrid: assets/hybrid (Qwen3-Next: 3 Gated DeltaNet layers to 1 gated full-attention layer)")
    parser.add_argument("--steps", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--d", type=int, default=128)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--kv-heads", type=int, default=2, help="llama: K/V heads (grouped-query attention)")
    parser.add_argument("--mlp", type=int, default=352, help="llama: the SwiGLU MLP's width")
    parser.add_argument("--vocab", type=int, default=3000)
    parser.add_argument("--context", type=int, default=128)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--output-gate", action="store_true",
                        help="llama: a sigmoid gate on each head's output (the sink twin, written to assets/llama-gated)")
    parser.add_argument("--synthetic", type=float, default=0.2, help="share of rows that are a repeated random string")
    parser.add_argument("--synthetic-early", type=float, default=0.4, help="that share for the first --early-steps steps")
    parser.add_argument("--early-steps", type=int, default=3000)
    parser.add_argument("--eval-every", type=int, default=1000)
    parser.add_argument("--checkpoint", type=Path, help="a file to save the run to every --checkpoint-every steps and resume from "
                        "when it exists (a long run survives being stopped; the result is the same as in one go)")
    parser.add_argument("--checkpoint-every", type=int, default=250)
    parser.add_argument("--out", type=Path, help="default: assets/gpt2 (gpt2), assets/llama (llama)")
    parser.add_argument("--fixtures", type=Path, help="where the logits the Rust forward pass must reproduce go "
                        "(default: tests/fixtures/gpt2.json, tests/fixtures/llama.json)")
    parser.add_argument("--vocab-from", type=Path, help="a vocab.json to use instead of building one "
                        "(default for llama: assets/gpt2/vocab.json, the GPT-2 model's)")
    args = parser.parse_args()
    if args.arch == "hybrid" and (args.layers < 4 or args.layers % 4):
        parser.error(f"--arch hybrid needs --layers a multiple of 4 (three linear layers to one full one), not {args.layers}")
    global net
    net = {"llama": llama, "hybrid": hybrid}.get(args.arch, model)
    name = args.arch
    if args.output_gate and args.arch != "llama":
        parser.error("--output-gate: only --arch llama (the hybrid's full layers are gated already)")
    if args.output_gate:
        name = "llama-gated"
    args.out = args.out or ROOT / "assets" / name
    args.fixtures = args.fixtures or ROOT / "tests" / "fixtures" / f"{name}.json"
    if args.arch in ("llama", "hybrid") and args.vocab_from is None:
        args.vocab_from = ROOT / "assets" / "gpt2" / "vocab.json"

    started = time.time()
    corpus = data.corpus()
    corpus = {lang: ([(s, normalise(d)) for s, d in tr], [(s, normalise(d)) for s, d in he])
              for lang, (tr, he) in corpus.items()}
    train_docs = corpus["en"][0] + corpus["zh"][0]
    if args.vocab_from:
        vocab = json.loads(args.vocab_from.read_text(encoding="utf-8"))
    else:
        vocab = build_vocab(train_docs, args.vocab)
    index = {c: i for i, c in enumerate(vocab)}
    streams = [stream(corpus["en"][0], index), stream(corpus["zh"][0], index)]
    held = {lang: corpus[lang][1] for lang in corpus}
    print(f"data: {sum(len(s) for s in streams) / 1e6:.2f} M training characters, vocabulary {len(vocab)}", flush=True)

    if args.arch == "hybrid":
        params = hybrid.init(jax.random.PRNGKey(args.seed), len(vocab), args.d, args.layers, args.heads, args.kv_heads,
                             args.mlp, args.heads, args.d // args.heads)
    elif args.arch == "llama":
        params = llama.init(jax.random.PRNGKey(args.seed), len(vocab), args.d, args.layers, args.heads, args.kv_heads, args.mlp,
                            output_gate=args.output_gate)
    else:
        params = model.init(jax.random.PRNGKey(args.seed), len(vocab), args.d, args.layers, args.heads, args.context)
    count = sum(int(np.prod(v.shape)) for v in params.values())
    print(f"model: {args.layers} layers x {args.d} wide, {args.heads} heads, {count:,} parameters", flush=True)
    schedule = optax.warmup_cosine_decay_schedule(0.0, args.lr, min(300, args.steps // 10), args.steps, args.lr / 10)
    decay = lambda p: {k: v.ndim == 2 and not k.startswith("wpe") for k, v in p.items()}
    optimiser = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=0.1, mask=decay))
    state = optimiser.init(params)

    @jax.jit
    def step(params, state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y, args.heads)
        updates, state = optimiser.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    batches = Batches(streams, len(vocab), args.context, args.batch, args.synthetic, args.seed)
    history = []
    losses = []
    first = 1
    resumed = []
    if args.checkpoint and args.checkpoint.exists():
        saved = pickle.loads(args.checkpoint.read_bytes())
        params = {k: jnp.asarray(v) for k, v in saved["params"].items()}
        state = jax.tree_util.tree_map(jnp.asarray, saved["state"])
        batches.rng, history, losses, first = saved["rng"], saved["history"], saved["losses"], saved["step"] + 1
        # A run resumed under another --steps: the schedule changes there (recorded in the card).
        before = saved.get("resumed") or []
        resumed = [before] if isinstance(before, dict) else list(before)
        if saved.get("steps", args.steps) != args.steps:
            resumed.append({"step": saved["step"], "steps_before": saved["steps"]})
        started = time.time() - saved["seconds"]
        print(f"resumed from {args.checkpoint} after step {saved['step']}", flush=True)
        done = saved["step"]
        if (done % args.eval_every == 0 or done == args.steps) and not any(h["step"] == done for h in history):
            # A checkpoint saved before its step's evaluation (as this program once did).
            m = measure(params, vocab, index, held, args.heads, args.context, args.seed)
            history.append({"step": done, "train_loss": float(np.mean(losses[-100:])), **m})
    for i in range(first, args.steps + 1):
        # More repeated strings early: induction heads form sooner (then prose takes over).
        batches.synthetic = args.synthetic_early if i <= args.early_steps else args.synthetic
        x, y = next(batches)
        params, state, loss = step(params, state, x, y)
        losses.append(float(loss))
        if i % 100 == 0:
            print(f"step {i}: loss {np.mean(losses[-100:]):.3f} ({time.time() - started:.0f} s)", flush=True)
        if i % args.eval_every == 0 or i == args.steps:
            m = measure(params, vocab, index, held, args.heads, args.context, args.seed)
            history.append({"step": i, "train_loss": float(np.mean(losses[-100:])), **m})
            best_prev = max(max(h) for h in m["previous_token"] if h is not None)
            best_ind = max((max(h) for h in m["induction"][1:] if h is not None), default=0)
            best_first = max(max(h) for h in m["first_token"] if h is not None)
            print(f"  eval {i}: en top-1 {m['en_held_out_top1']:.3f}, zh top-5 {m['zh_held_out_top5']:.3f}, "
                  f"previous-token {best_prev:.2f}, induction {best_ind:.2f}, first-token {best_first:.2f}", flush=True)
        # Saved after the step's evaluation, so that a run resumed here never lacks one.
        if args.checkpoint and i % args.checkpoint_every == 0:
            args.checkpoint.parent.mkdir(parents=True, exist_ok=True)
            saved = {"params": {k: np.asarray(v) for k, v in params.items()},
                     "state": jax.tree_util.tree_map(np.asarray, state), "rng": batches.rng,
                     "history": history, "losses": losses, "step": i, "seconds": time.time() - started,
                     "steps": args.steps, "resumed": resumed}
            args.checkpoint.with_suffix(".tmp").write_bytes(pickle.dumps(saved))
            args.checkpoint.with_suffix(".tmp").replace(args.checkpoint)

    val_rng = np.random.default_rng(args.seed + 1)
    val = np.concatenate([windows(stream(held[l], index), args.context, 64, val_rng) for l in ("en", "zh")])
    val_loss = float(loss_fn(params, jnp.asarray(val[:, :-1]), jnp.asarray(val[:, 1:]), args.heads))
    metrics = {
        "command": "python train.py " + " ".join(
            f"--{k.replace('_', '-')}" + ("" if v is True else f" {v}") for k, v in vars(args).items()
            if k not in ("out", "fixtures", "vocab_from", "checkpoint", "checkpoint_every") and v is not False),
        "parameters": count,
        "vocabulary": len(vocab),
        "training_characters": int(sum(len(s) for s in streams)),
        "seconds": round(time.time() - started),
        "final": {**history[-1], "validation_loss": val_loss},
        "history": history,
        **({"resumed": resumed} if resumed else {}),
        "sources": {lang: dict(collections.Counter(s for s, _ in corpus[lang][0] + corpus[lang][1])) for lang in corpus},
    }
    export(params, vocab, args, args.out, metrics)
    print(f"wrote {args.out} in {time.time() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main()
