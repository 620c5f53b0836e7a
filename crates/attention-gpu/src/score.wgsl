// How a head turns a scaled dot product into the score softmax reads, shared by softmax.wgsl and
// flash.wgsl (their Rust modules put this file in front of them), in the order of the core's
// `scoring` module: z = q·k/√d_k + ALiBi's bias −m_h·|i − j|; z = c·tanh(z/c) with a soft-cap c
// (0: none); z = z/T. `heads` holds, per head, its ALiBi slope (0 without) and its sink logit
// already divided by T (NO_SINK without).

const NO_SINK: f32 = -3.0e38;

// tanh written out: exp(−2|x|) never overflows, where some drivers' tanh returns NaN past |x| ≈ 44.
fn soft_tanh(x: f32) -> f32 {
    let t = exp(-2.0 * abs(x));
    return sign(x) * (1.0 - t) / (1.0 + t);
}

fn shape_score(scaled_dot: f32, i: u32, j: u32, slope: f32, cap: f32, inv_t: f32) -> f32 {
    var z = scaled_dot - slope * f32(max(i, j) - min(i, j));
    if (cap > 0.0) {
        z = cap * soft_tanh(z / cap);
    }
    return z * inv_t;
}
