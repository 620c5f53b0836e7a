"""The lab's second model, in the layout of today's open models (Llama), written out in JAX so
that every step is visible: token embeddings and no position vectors; pre-norm blocks
x = x + Attn(RMSNorm(x)); x = x + MLP(RMSNorm(x)); rotary positions (RoPE, "half" pairing:
dimension p turns with p + d_head/2, base 10000) on each head's q and k; grouped-query attention
(query head h reads K/V head h // (heads / kv_heads)); a SwiGLU MLP down(silu(gate(x)) * up(x));
no biases anywhere; a final RMSNorm; the LM head tied to the token embedding. With an output
gate (`--output-gate`, the sink twin), each head's output is multiplied element by element by
sigmoid(RMSNorm(x) @ W_g.T) before W_O (`self_attn.g_proj.weight`, [heads * d_head, d]).

Parameters use Hugging Face's `LlamaForCausalLM` names and PyTorch's `Linear` layout (weight is
[out, in], y = x @ W.T), so the exported file loads as that class.
"""

import math

import jax
import jax.numpy as jnp

EPS = 1e-5
BASE = 10000.0


def init(key, vocab, d, layers, heads, kv_heads, mlp, output_gate=False):
    """N(0, 0.02); the projections that write into the residual stream scaled by 1/sqrt(2 * layers).
    With `output_gate`, each layer's `self_attn.g_proj.weight` too (the sigmoid gate on each
    head's output, Qiu et al. 2025), drawn from keys of its own: the other weights are the
    ungated twin's, draw for draw."""
    keys = iter(jax.random.split(key, 2 + 7 * layers))
    normal = lambda shape, std=0.02: std * jax.random.normal(next(keys), shape, jnp.float32)
    residual = 0.02 / math.sqrt(2 * layers)
    d_head = d // heads
    params = {
        "model.embed_tokens.weight": normal((vocab, d)),
        "model.norm.weight": jnp.ones(d),
    }
    for i in range(layers):
        p = f"model.layers.{i}."
        params |= {
            p + "input_layernorm.weight": jnp.ones(d),
            p + "self_attn.q_proj.weight": normal((heads * d_head, d)),
            p + "self_attn.k_proj.weight": normal((kv_heads * d_head, d)),
            p + "self_attn.v_proj.weight": normal((kv_heads * d_head, d)),
            p + "self_attn.o_proj.weight": normal((d, heads * d_head), residual),
            p + "post_attention_layernorm.weight": jnp.ones(d),
            p + "mlp.gate_proj.weight": normal((mlp, d)),
            p + "mlp.up_proj.weight": normal((mlp, d)),
            p + "mlp.down_proj.weight": normal((d, mlp), residual),
        }
        if output_gate:
            gate_key = jax.random.fold_in(key, 1_000_003 + i)
            params[p + "self_attn.g_proj.weight"] = 0.02 * jax.random.normal(gate_key, (heads * d_head, d), jnp.float32)
    return params


def rms_norm(x, weight):
    return x * jax.lax.rsqrt((x * x).mean(-1, keepdims=True) + EPS) * weight


def rope(x, positions):
    """Turns pair (p, p + d/2) of each row of x [..., seq, d] by positions * BASE^(-2p/d)."""
    half = x.shape[-1] // 2
    inv_freq = 1.0 / BASE ** (jnp.arange(0, half, dtype=jnp.float32) * 2 / x.shape[-1])
    angles = positions.astype(jnp.float32)[:, None] * inv_freq[None, :]
    cos, sin = jnp.cos(angles), jnp.sin(angles)
    x1, x2 = x[..., :half], x[..., half:]
    return jnp.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)


def forward(params, ids, heads, collect=False):
    """Logits [batch, seq, vocab] for token ids [batch, seq]; with `collect`, also each layer's
    attention weights [batch, heads, seq, seq]."""
    layers = sum(1 for k in params if k.endswith(".input_layernorm.weight"))
    batch, seq = ids.shape
    embed = params["model.embed_tokens.weight"]
    d = embed.shape[1]
    d_head = d // heads
    kv_heads = params["model.layers.0.self_attn.k_proj.weight"].shape[0] // d_head
    positions = jnp.arange(seq)
    causal = jnp.tril(jnp.ones((seq, seq), bool))
    x = embed[ids]
    weights = []
    for i in range(layers):
        p = lambda name: params[f"model.layers.{i}.{name}"]
        h = rms_norm(x, p("input_layernorm.weight"))
        split = lambda t, n: t.reshape(batch, seq, n, d_head).transpose(0, 2, 1, 3)
        q = rope(split(h @ p("self_attn.q_proj.weight").T, heads), positions)
        k = rope(split(h @ p("self_attn.k_proj.weight").T, kv_heads), positions)
        v = split(h @ p("self_attn.v_proj.weight").T, kv_heads)
        k = jnp.repeat(k, heads // kv_heads, axis=1)
        v = jnp.repeat(v, heads // kv_heads, axis=1)
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d_head)
        scores = jnp.where(causal, scores, -1e30)
        w = jax.nn.softmax(scores, axis=-1)
        if collect:
            weights.append(w)
        out = (w @ v).transpose(0, 2, 1, 3).reshape(batch, seq, heads * d_head)
        gate = params.get(f"model.layers.{i}.self_attn.g_proj.weight")
        if gate is not None:
            # The output gate: each head's output times sigmoid(x_norm @ W_g), element by element,
            # before W_O (a head can then write nothing, without parking its weight on a sink).
            out = out * jax.nn.sigmoid(h @ gate.T)
        x = x + out @ p("self_attn.o_proj.weight").T
        h = rms_norm(x, p("post_attention_layernorm.weight"))
        h = jax.nn.silu(h @ p("mlp.gate_proj.weight").T) * (h @ p("mlp.up_proj.weight").T)
        x = x + h @ p("mlp.down_proj.weight").T
    x = rms_norm(x, params["model.norm.weight"])
    logits = x @ embed.T
    return (logits, weights) if collect else logits
