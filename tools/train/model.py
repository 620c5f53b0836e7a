"""GPT-2, written out in JAX so that every step is visible: token and learned position
embeddings; pre-LN blocks x = x + Attn(LN1(x)); x = x + MLP(LN2(x)); causal multi-head
attention with biases; an MLP of d -> 4d -> d with GELU (tanh approximation); a final LayerNorm;
the LM head tied to the token embedding; LayerNorm eps = 1e-5.

Parameters use Hugging Face's GPT-2 names and layouts (Conv1D: y = x @ W + b, W is [in, out];
c_attn holds Q, K and V side by side), so the exported file loads as `GPT2LMHeadModel`.
"""

import math

import jax
import jax.numpy as jnp

EPS = 1e-5


def init(key, vocab, d, layers, heads, positions):
    """GPT-2's initialisation: N(0, 0.02), residual projections scaled by 1/sqrt(2 * layers)."""
    keys = iter(jax.random.split(key, 4 + 4 * layers))
    normal = lambda shape, std=0.02: std * jax.random.normal(next(keys), shape, jnp.float32)
    residual = 0.02 / math.sqrt(2 * layers)
    params = {
        "wte.weight": normal((vocab, d)),
        "wpe.weight": normal((positions, d), 0.01),
        "ln_f.weight": jnp.ones(d),
        "ln_f.bias": jnp.zeros(d),
    }
    for i in range(layers):
        params |= {
            f"h.{i}.ln_1.weight": jnp.ones(d),
            f"h.{i}.ln_1.bias": jnp.zeros(d),
            f"h.{i}.attn.c_attn.weight": normal((d, 3 * d)),
            f"h.{i}.attn.c_attn.bias": jnp.zeros(3 * d),
            f"h.{i}.attn.c_proj.weight": normal((d, d), residual),
            f"h.{i}.attn.c_proj.bias": jnp.zeros(d),
            f"h.{i}.ln_2.weight": jnp.ones(d),
            f"h.{i}.ln_2.bias": jnp.zeros(d),
            f"h.{i}.mlp.c_fc.weight": normal((d, 4 * d)),
            f"h.{i}.mlp.c_fc.bias": jnp.zeros(4 * d),
            f"h.{i}.mlp.c_proj.weight": normal((4 * d, d), residual),
            f"h.{i}.mlp.c_proj.bias": jnp.zeros(d),
        }
    return params


def layer_norm(x, weight, bias):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + EPS) * weight + bias


def gelu(x):
    """GELU, tanh approximation (GPT-2's `gelu_new`)."""
    return 0.5 * x * (1.0 + jnp.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def forward(params, ids, heads, collect=False):
    """Logits [batch, seq, vocab] for token ids [batch, seq]; with `collect`, also each layer's
    attention weights [batch, heads, seq, seq]."""
    layers = sum(1 for k in params if k.endswith(".ln_1.weight"))
    batch, seq = ids.shape
    d = params["wte.weight"].shape[1]
    d_k = d // heads
    x = params["wte.weight"][ids] + params["wpe.weight"][:seq]
    causal = jnp.tril(jnp.ones((seq, seq), bool))
    weights = []
    for i in range(layers):
        p = lambda name: params[f"h.{i}.{name}"]
        h = layer_norm(x, p("ln_1.weight"), p("ln_1.bias"))
        qkv = h @ p("attn.c_attn.weight") + p("attn.c_attn.bias")
        q, k, v = jnp.split(qkv, 3, axis=-1)
        split = lambda t: t.reshape(batch, seq, heads, d_k).transpose(0, 2, 1, 3)
        q, k, v = split(q), split(k), split(v)
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d_k)
        scores = jnp.where(causal, scores, -1e30)
        w = jax.nn.softmax(scores, axis=-1)
        if collect:
            weights.append(w)
        out = (w @ v).transpose(0, 2, 1, 3).reshape(batch, seq, d)
        x = x + out @ p("attn.c_proj.weight") + p("attn.c_proj.bias")
        h = layer_norm(x, p("ln_2.weight"), p("ln_2.bias"))
        h = gelu(h @ p("mlp.c_fc.weight") + p("mlp.c_fc.bias"))
        x = x + h @ p("mlp.c_proj.weight") + p("mlp.c_proj.bias")
    x = layer_norm(x, params["ln_f.weight"], params["ln_f.bias"])
    logits = x @ params["wte.weight"].T
    return (logits, weights) if collect else logits
