"""One random case of transformers' own gated delta rule (Qwen3-Next's `torch_recurrent_gated_delta_rule`,
checked against its chunked form), written to tests/fixtures/gated_delta.json for the lab's
tests. Run by hand with the venv of make_fixtures.py."""
import json, torch
from transformers.models.qwen3_next.modeling_qwen3_next import torch_recurrent_gated_delta_rule, torch_chunk_gated_delta_rule
torch.manual_seed(0)
T, H, dk, dv = 11, 2, 4, 3
q = torch.randn(1, T, H, dk); k = torch.randn(1, T, H, dk); v = torch.randn(1, T, H, dv)
beta = torch.rand(1, T, H)
g = -torch.rand(1, T, H)
out_r, s_r = torch_recurrent_gated_delta_rule(q, k, v, g, beta, None, True, use_qk_l2norm_in_kernel=True)
out_c, s_c = torch_chunk_gated_delta_rule(q, k, v, g, beta, chunk_size=4, output_final_state=True, use_qk_l2norm_in_kernel=True)
print("recurrent vs chunked", (out_r - out_c).abs().max().item())
r = lambda x: [[round(float(a), 7) for a in row] for row in x]
heads = []
for h in range(H):
    heads.append({"q": r(q[0, :, h]), "k": r(k[0, :, h]), "v": r(v[0, :, h]), "beta": [round(float(b), 7) for b in beta[0, :, h]],
                  "log_alpha": [round(float(a), 7) for a in g[0, :, h]], "output": r(out_r[0, :, h]), "state": r(s_r[0, h])})
json.dump({"transformers": __import__("transformers").__version__, "function": "torch_recurrent_gated_delta_rule", "heads": heads}, open(__import__("pathlib").Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "gated_delta.json", "w"))
