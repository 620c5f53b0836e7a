"""The lab's third model: a hybrid in the layout of Qwen3-Next (2025), written out in JAX so that
every step is visible. Three layers of Gated DeltaNet (linear attention with the delta rule and a
decay) for each layer of gated full attention, the full one last (3 : 1):

- every layer: x = x + Mixer(RMSNorm(x)); x = x + SwiGLU(RMSNorm(x)), the RMSNorms' gains
  stored as γ and applied as 1 + γ (zero-centred, as Qwen3-Next stores them);
- Gated DeltaNet (`linear_attn`): in_proj_qkvz gives q, k, v and a gate z per head, in_proj_ba
  gives b and a; q, k, v pass through a causal depthwise convolution of 4 taps and SiLU; q and k
  are L2-normalised, q scaled by 1/√d_k; β = σ(b), α = exp(−exp(A_log)·softplus(a + dt_bias));
  the state S (d_k × d_v) runs S ← α S; S ← S + k ⊗ β (v − Sᵀk); o = Sᵀq; the output is
  RMSNorm(o)·w·SiLU(z), then out_proj;
- gated full attention (`self_attn`): q_proj gives each head's q and its gate side by side; q and
  k pass through RMSNorm (1 + γ, QK-norm); RoPE turns the first quarter of each head ("half"
  pairing within it); causal softmax attention with grouped-query K/V heads; each head's output
  times σ(gate) (the output gate), then o_proj;
- the LM head tied to the token embedding.

Parameters use Hugging Face's `Qwen3NextForCausalLM` names and PyTorch's layouts, so the exported
file loads as that class (with `num_experts` 0: every MLP dense).
"""

import math

import jax
import jax.numpy as jnp
from jax.scipy.linalg import solve_triangular

EPS = 1e-6
BASE = 10000.0
ROTARY = 0.25
CONV = 4
CHUNK = 64
# Set by `init` (or `configure`): the shapes forward() needs beyond the parameters' own.
SHAPE = {}


def configure(heads, kv_heads, linear_heads, head_dim, interval=4):
    SHAPE.update(heads=heads, kv_heads=kv_heads, linear_heads=linear_heads, head_dim=head_dim, interval=interval)


def layer_types(layers, interval=4):
    """Qwen3-Next's default pattern: full attention on every `interval`-th layer."""
    return ["full_attention" if (i + 1) % interval == 0 else "linear_attention" for i in range(layers)]


def init(key, vocab, d, layers, heads, kv_heads, mlp, linear_heads, head_dim):
    """N(0, 0.02); the projections into the residual stream scaled by 1/sqrt(2 * layers); norms
    at γ = 0 (a gain of 1); A ~ U[1, 16] and dt ~ logU[0.001, 0.1] through dt_bias = softplus⁻¹(dt),
    as Mamba 2 and Gated DeltaNet start them, so that α starts near 1 (long memory)."""
    configure(heads, kv_heads, linear_heads, head_dim)
    keys = iter(jax.random.split(key, 4 + 12 * layers))
    normal = lambda shape, std=0.02: std * jax.random.normal(next(keys), shape, jnp.float32)
    residual = 0.02 / math.sqrt(2 * layers)
    dk = dv = head_dim
    params = {"model.embed_tokens.weight": normal((vocab, d)), "model.norm.weight": jnp.zeros(d)}
    for i, kind in enumerate(layer_types(layers, SHAPE["interval"])):
        p = f"model.layers.{i}."
        params |= {
            p + "input_layernorm.weight": jnp.zeros(d),
            p + "post_attention_layernorm.weight": jnp.zeros(d),
            p + "mlp.gate_proj.weight": normal((mlp, d)),
            p + "mlp.up_proj.weight": normal((mlp, d)),
            p + "mlp.down_proj.weight": normal((d, mlp), residual),
        }
        if kind == "full_attention":
            params |= {
                p + "self_attn.q_proj.weight": normal((heads * head_dim * 2, d)),
                p + "self_attn.k_proj.weight": normal((kv_heads * head_dim, d)),
                p + "self_attn.v_proj.weight": normal((kv_heads * head_dim, d)),
                p + "self_attn.o_proj.weight": normal((d, heads * head_dim), residual),
                p + "self_attn.q_norm.weight": jnp.zeros(head_dim),
                p + "self_attn.k_norm.weight": jnp.zeros(head_dim),
            }
        else:
            n = linear_heads
            dt = jnp.exp(jax.random.uniform(next(keys), (n,), minval=math.log(1e-3), maxval=math.log(0.1)))
            params |= {
                p + "linear_attn.in_proj_qkvz.weight": normal((n * (2 * dk + 2 * dv), d)),
                p + "linear_attn.in_proj_ba.weight": normal((2 * n, d)),
                # Conv1d's default start: U(±1/sqrt(taps)).
                p + "linear_attn.conv1d.weight": jax.random.uniform(
                    next(keys), (n * (2 * dk + dv), 1, CONV), minval=-0.5, maxval=0.5),
                p + "linear_attn.dt_bias": dt + jnp.log(-jnp.expm1(-dt)),
                p + "linear_attn.A_log": jnp.log(jax.random.uniform(next(keys), (n,), minval=1.0, maxval=16.0)),
                p + "linear_attn.norm.weight": jnp.ones(dv),
                p + "linear_attn.out_proj.weight": normal((d, n * dv), residual),
            }
    return params


def rms_norm(x, gamma):
    """Qwen3-Next's RMSNorm: the gain stored as γ, applied as 1 + γ."""
    return x * jax.lax.rsqrt((x * x).mean(-1, keepdims=True) + EPS) * (1.0 + gamma)


def rope(x, positions):
    """Turns the first ROTARY share of each row of x [..., seq, d]: pair (p, p + r/2) of those r
    dimensions by positions · BASE^(−2p/r); the rest pass unchanged."""
    r = int(x.shape[-1] * ROTARY)
    half = r // 2
    inv_freq = 1.0 / BASE ** (jnp.arange(0, r, 2, dtype=jnp.float32) / r)
    angles = positions.astype(jnp.float32)[:, None] * inv_freq[None, :]
    cos, sin = jnp.cos(angles), jnp.sin(angles)
    x1, x2, rest = x[..., :half], x[..., half:r], x[..., r:]
    return jnp.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin, rest], axis=-1)


def l2norm(x):
    return x * jax.lax.rsqrt((x * x).sum(-1, keepdims=True) + 1e-6)


def chunked_delta_rule(q, k, v, g, beta, chunk=CHUNK):
    """Gated DeltaNet's output [b, h, t, dv] from q, k [b, h, t, dk] (normalised, q scaled),
    v [b, h, t, dv], log-decays g and β [b, h, t]: the chunked (WY) form of
    `torch_chunk_gated_delta_rule`, each chunk's triangular system solved at once. Also returns
    the final state [b, h, dk, dv]."""
    b, h, t, dk = k.shape
    dv = v.shape[-1]
    pad = (-t) % chunk
    padded = lambda x: jnp.pad(x, [(0, 0), (0, 0), (0, pad)] + [(0, 0)] * (x.ndim - 3))
    q, k, v, g, beta = map(padded, (q, k, v, g, beta))
    n = (t + pad) // chunk
    split = lambda x: x.reshape(b, h, n, chunk, *x.shape[3:])
    q, k, v, g, beta = map(split, (q, k, v, g, beta))
    g = jnp.cumsum(g, axis=-1)
    lower = jnp.tril(jnp.ones((chunk, chunk), bool))
    diff = g[..., :, None] - g[..., None, :]
    decay = jnp.where(lower, jnp.exp(jnp.where(lower, diff, 0.0)), 0.0)
    k_beta = k * beta[..., None]
    strict = jnp.tril(jnp.ones((chunk, chunk), bool), -1)
    system = jnp.eye(chunk) + jnp.where(strict, (k_beta @ jnp.swapaxes(k, -1, -2)) * decay, 0.0)
    eye = jnp.broadcast_to(jnp.eye(chunk), system.shape)
    inverse = solve_triangular(system, eye, lower=True, unit_diagonal=True)
    values = inverse @ (v * beta[..., None])
    k_cumdecay = inverse @ (k_beta * jnp.exp(g)[..., None])
    inner = jnp.where(lower, (q @ jnp.swapaxes(k, -1, -2)) * decay, 0.0)

    def step(state, xs):
        q_i, k_i, v_i, g_i, kc_i, inner_i = xs
        v_new = v_i - kc_i @ state
        out = (q_i * jnp.exp(g_i)[..., None]) @ state + inner_i @ v_new
        last = g_i[..., -1:]
        state = state * jnp.exp(last)[..., None] + jnp.swapaxes(k_i * jnp.exp(last - g_i)[..., None], -1, -2) @ v_new
        return state, out

    move = lambda x: jnp.moveaxis(x, 2, 0)
    state0 = jnp.zeros((b, h, dk, dv), q.dtype)
    state, outs = jax.lax.scan(step, state0, tuple(map(move, (q, k, values, g, k_cumdecay, inner))))
    out = jnp.moveaxis(outs, 0, 2).reshape(b, h, n * chunk, dv)[:, :, :t]
    return out, state


def gated_delta_net(p, x):
    """Layer `p`'s Gated DeltaNet on the normed rows x [b, t, d]: what it adds to the residual
    stream, and per head β, α and the output before its norm (for the fixtures)."""
    b, t, _ = x.shape
    n, dk = SHAPE["linear_heads"], SHAPE["head_dim"]
    dv = dk
    qkvz = (x @ p("linear_attn.in_proj_qkvz.weight").T).reshape(b, t, n, 2 * dk + 2 * dv)
    q, k, v, z = (qkvz[..., :dk], qkvz[..., dk:2 * dk], qkvz[..., 2 * dk:2 * dk + dv], qkvz[..., 2 * dk + dv:])
    ba = (x @ p("linear_attn.in_proj_ba.weight").T).reshape(b, t, n, 2)
    bb, a = ba[..., 0], ba[..., 1]
    mixed = jnp.concatenate([q.reshape(b, t, -1), k.reshape(b, t, -1), v.reshape(b, t, -1)], axis=-1)
    w = p("linear_attn.conv1d.weight")[:, 0, :]  # [channels, taps]
    taps = w.shape[1]
    padded = jnp.pad(mixed, [(0, 0), (taps - 1, 0), (0, 0)])
    conv = sum(padded[:, j:j + t, :] * w[:, j] for j in range(taps))
    mixed = jax.nn.silu(conv)
    q = mixed[..., :n * dk].reshape(b, t, n, dk)
    k = mixed[..., n * dk:2 * n * dk].reshape(b, t, n, dk)
    v = mixed[..., 2 * n * dk:].reshape(b, t, n, dv)
    beta = jax.nn.sigmoid(bb)
    g = -jnp.exp(p("linear_attn.A_log")) * jax.nn.softplus(a + p("linear_attn.dt_bias"))
    heads = lambda x: jnp.swapaxes(x, 1, 2)
    q = l2norm(heads(q)) / math.sqrt(dk)
    k = l2norm(heads(k))
    o, _ = chunked_delta_rule(q, k, heads(v), heads(g), heads(beta))
    o = heads(o)  # [b, t, n, dv]
    normed = o * jax.lax.rsqrt((o * o).mean(-1, keepdims=True) + EPS) * p("linear_attn.norm.weight")
    gated = normed * jax.nn.silu(z)
    return gated.reshape(b, t, n * dv) @ p("linear_attn.out_proj.weight").T, (beta, jnp.exp(g), o)


def full_attention(p, x):
    """Layer `p`'s gated full attention on the normed rows x [b, t, d]: what it adds, and its
    weights [b, heads, t, t]."""
    b, t, _ = x.shape
    heads, kv, dh = SHAPE["heads"], SHAPE["kv_heads"], SHAPE["head_dim"]
    qg = (x @ p("self_attn.q_proj.weight").T).reshape(b, t, heads, 2 * dh)
    q, gate = qg[..., :dh], qg[..., dh:].reshape(b, t, heads * dh)
    q = rms_norm(q, p("self_attn.q_norm.weight"))
    k = rms_norm((x @ p("self_attn.k_proj.weight").T).reshape(b, t, kv, dh), p("self_attn.k_norm.weight"))
    v = (x @ p("self_attn.v_proj.weight").T).reshape(b, t, kv, dh)
    positions = jnp.arange(t)
    q = rope(jnp.swapaxes(q, 1, 2), positions)
    k = jnp.repeat(rope(jnp.swapaxes(k, 1, 2), positions), heads // kv, axis=1)
    v = jnp.repeat(jnp.swapaxes(v, 1, 2), heads // kv, axis=1)
    scores = q @ jnp.swapaxes(k, -1, -2) / math.sqrt(dh)
    scores = jnp.where(jnp.tril(jnp.ones((t, t), bool)), scores, -1e30)
    w = jax.nn.softmax(scores, axis=-1)
    out = jnp.swapaxes(w @ v, 1, 2).reshape(b, t, heads * dh) * jax.nn.sigmoid(gate)
    return out @ p("self_attn.o_proj.weight").T, w


def forward(params, ids, heads=None, collect=False):
    """Logits [batch, seq, vocab] for token ids [batch, seq]; with `collect`, also each layer's
    mixing: the full layers' attention weights [batch, heads, seq, seq], and for the linear
    layers (β, α, o) per head."""
    layers = sum(1 for k in params if k.endswith(".input_layernorm.weight"))
    embed = params["model.embed_tokens.weight"]
    x = embed[ids]
    mixing = []
    for i in range(layers):
        p = lambda name: params[f"model.layers.{i}.{name}"]
        h = rms_norm(x, p("input_layernorm.weight"))
        if f"model.layers.{i}.self_attn.q_proj.weight" in params:
            added, seen = full_attention(p, h)
        else:
            added, seen = gated_delta_net(p, h)
        mixing.append(seen)
        x = x + added
        h = rms_norm(x, p("post_attention_layernorm.weight"))
        h = jax.nn.silu(h @ p("mlp.gate_proj.weight").T) * (h @ p("mlp.up_proj.weight").T)
        x = x + h @ p("mlp.down_proj.weight").T
    x = rms_norm(x, params["model.norm.weight"])
    logits = x @ embed.T
    return (logits, mixing) if collect else logits
