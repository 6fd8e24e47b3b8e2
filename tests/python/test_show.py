"""attnviz's Python package against PyTorch: every module family, masks, captures,
files, links and every refusal. The states it makes are run by attnviz's own engine
(the wasm CLI, or ATTNVIZ_CLI) and compared with the module's own weights.

Tolerance: |attnviz − torch| ≤ 2e-6 + 2e-5·|torch| on softmax weights (values in
[0, 1]). The two do the same float32 arithmetic in a different order: PyTorch's
nn.MultiheadAttention divides q by √head_dim before q·kᵀ, its matrix products use
fused multiply-adds and blocked sums; measured differences here are below 1e-6. A
wrong transposition, third, head split, RoPE pairing or mask is off by 1e-2 or more.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
import attnviz  # noqa: E402
import modules as M  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("ATTNVIZ_CLI", "node --no-experimental-fetch " + os.path.join(ROOT, "build/wasm/attnviz-cli.js"))


def engine(state):
    """attnviz-cli run of a state: {"heads": [{"weights": ...}, ...], "output": ...}."""
    st = state if isinstance(state, attnviz.State) else attnviz.State(state)
    r = subprocess.run(CLI.split() + ["run", "-"], input=st.to_json().encode(), capture_output=True)
    if r.returncode != 0:
        raise AssertionError("attnviz-cli refused the state: " + r.stdout.decode() + r.stderr.decode())
    return json.loads(r.stdout)


def weights_of(result):
    return np.array([h["weights"] for h in result["heads"]], dtype=np.float64)


class Close:
    def assertWeights(self, state, torch_weights, msg=""):
        got = weights_of(engine(state))
        want = torch_weights.detach().double().numpy()
        if want.ndim == 4:
            want = want[0]
        self.assertEqual(got.shape, want.shape, msg)
        err = np.abs(got - want) - (2e-6 + 2e-5 * np.abs(want))
        if os.environ.get("ATTNVIZ_PRINT_DIFF"):
            print("%s: %.3g" % (msg, np.abs(got - want).max()))
        self.assertLessEqual(err.max(), 0, "%s: largest difference %.3g" % (msg, np.abs(got - want).max()))


class Families(unittest.TestCase, Close):
    def test_multihead_attention_every_way_it_is_built(self):
        causal = torch.triu(torch.ones(6, 6, dtype=torch.bool), 1)
        for batch_first in (True, False):
            for bias in (True, False):
                torch.manual_seed(123)
                mha = torch.nn.MultiheadAttention(16, 4, bias=bias, batch_first=batch_first).eval()
                x = torch.randn(1, 6, 16) if batch_first else torch.randn(6, 1, 16)
                w = mha(x, x, x, need_weights=True, average_attn_weights=False, attn_mask=causal)[1]
                for how in ({"causal": True}, {"attn_mask": causal}):
                    st = attnviz.state_of(mha, x, **how)
                    self.assertTrue(st.dict["causal"])
                    self.assertEqual(st.dict["qkv_bias"], bias)
                    self.assertWeights(st, w, "batch_first=%s bias=%s %s" % (batch_first, bias, list(how)))

    def test_multihead_attention_padding_and_a_batch(self):
        torch.manual_seed(5)
        mha = torch.nn.MultiheadAttention(8, 2, batch_first=True).eval()
        x = torch.randn(3, 5, 8)
        pad = torch.tensor([[0, 0, 0, 0, 0], [0, 0, 0, 1, 1], [0, 1, 0, 0, 1]], dtype=torch.bool)
        w = mha(x, x, x, need_weights=True, average_attn_weights=False, key_padding_mask=pad)[1]
        for b in range(3):
            st = attnviz.state_of(mha, x, batch_index=b, key_padding_mask=pad)
            self.assertEqual(st.dict["key_padding"], [0 if v else 1 for v in pad[b].tolist()])
            self.assertWeights(st, w[b], "batch %d" % b)

    def test_gpt2_conv1d_and_nanogpt_linear(self):
        for linear in (False, True):
            torch.manual_seed(0)
            gpt = M.GPT2Attention(24, 3, linear=linear)
            x = torch.randn(7, 24)
            st = attnviz.state_of(gpt, x)
            self.assertTrue(st.dict["causal"])            # GPT-2 is causal without being told
            self.assertEqual(st.dict["num_heads"], 3)
            self.assertWeights(st, gpt(x)[1], "linear=%s" % linear)
            out = np.array(engine(st)["output"])
            self.assertLess(np.abs(out - gpt(x)[0].detach().numpy()).max(), 1e-4)  # c_proj too

    def test_llama_rope_and_gqa(self):
        for heads, kv, theta, d in ((4, 2, 10000.0, 32), (4, 1, 500000.0, 32), (2, 2, 10000.0, 4), (8, 4, 10000.0, 512)):
            torch.manual_seed(1)
            m = M.LlamaAttention(d, heads, kv, theta)
            x = torch.randn(9, d)
            st = attnviz.state_of(m, x)
            self.assertEqual(st.dict["positional"], "rope")
            self.assertEqual(st.dict["rope"]["base"], theta)
            self.assertEqual(st.dict.get("num_kv_heads", heads), kv)
            self.assertWeights(st, m(x)[1], "heads %d kv %d base %g d %d" % (heads, kv, theta, d))

    def test_fused_qkv_the_tutorials_and_one_head(self):
        torch.manual_seed(2)
        f, x = M.FusedQKV(12, 3), torch.randn(5, 12)
        self.assertWeights(attnviz.state_of(f, x), f(x)[1], "qkv")
        t, x = M.TutorialMHA(6, 4, 10, 2), torch.randn(6, 6)
        st = attnviz.state_of(t, x)
        self.assertTrue(st.dict["causal"])                 # its triu buffer
        self.assertWeights(st, t(x)[1], "W_query")
        torch.manual_seed(123)
        v1, x = M.SelfAttentionV1(3, 2), torch.rand(6, 3)
        self.assertWeights(attnviz.state_of(v1, x), v1(x)[1], "SelfAttention_v1 (bare parameters)")
        # head_dim 1: 2 heads of a width of 2
        f, x = M.FusedQKV(2, 2), torch.randn(4, 2)
        self.assertWeights(attnviz.state_of(f, x), f(x)[1], "head_dim 1")

    def test_a_tokenizer_and_a_text(self):
        class Words:
            def __call__(self, text):
                return text.split()
        torch.manual_seed(3)
        mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)
        st = attnviz.state_of(mha, torch.randn(1, 4, 8), (Words(), "the cat sat down"))
        self.assertEqual(st.dict["tokens"], ["the", "cat", "sat", "down"])


class Capture(unittest.TestCase, Close):
    def test_two_layers_each_as_torch_computes_it(self):
        torch.manual_seed(7)
        model = M.TinyModel().eval()
        ids = torch.tensor([[3, 14, 15, 9, 26, 5, 3, 14]])
        cap = attnviz.capture(model, ids)
        self.assertEqual(cap.names(), ["blocks.0.attn", "blocks.1.attn"])
        self.assertEqual(cap[0].tokens, ["3", "14", "15", "9", "26", "5", "3", "14"])
        mask = torch.triu(torch.ones(8, 8, dtype=torch.bool), 1)
        for layer in cap:
            st = attnviz.state_of(layer)
            self.assertTrue(st.dict["causal"])             # read from the attn_mask the model passed
            w = layer.module(layer.x, layer.x, layer.x, attn_mask=mask, need_weights=True,
                             average_attn_weights=False)[1]
            self.assertWeights(st, w, layer.name)
        both_state = attnviz.state_of(cap)
        both = both_state.dict
        self.assertEqual([L["name"] for L in both["layers"]], cap.names())
        self.assertNotIn("weights", both)
        packed = both_state.to_safetensors()
        self.assertIn(b'"layers.1.weights.W_q"', packed[:4096])
        self.assertEqual(attnviz.State.from_safetensors(packed), both_state)
        self.assertEqual(attnviz.State.from_link(both_state.link()), both_state)
        # the engine runs the captured stack layer by layer, each on its own input
        result = engine(both_state)
        self.assertEqual([L["name"] for L in result["layers"]], cap.names())
        for layer, ran in zip(cap, result["layers"]):
            w = layer.module(layer.x, layer.x, layer.x, attn_mask=mask, need_weights=True,
                             average_attn_weights=False)[1][0].detach().double().numpy()
            got = weights_of(ran)
            self.assertLessEqual((np.abs(got - w) - (2e-6 + 2e-5 * np.abs(w))).max(), 0, layer.name)
        self.assertIs(cap["blocks.1.attn"], cap[1])
        with self.assertRaises(attnviz.AttnvizError) as e:
            cap["blocks.2.attn"]
        self.assertIn("blocks.0.attn, blocks.1.attn", str(e.exception))

    def test_a_model_without_attention_says_so(self):
        with self.assertRaises(attnviz.AttnvizError) as e:
            attnviz.capture(torch.nn.Sequential(torch.nn.Linear(4, 4)), torch.randn(2, 4))
        self.assertEqual(e.exception.code, "capture_empty")
        for m in (torch.nn.Sequential(torch.nn.Linear(4, 4)),):
            self.assertEqual(len(list(m.parameters())), 2)


class Refusals(unittest.TestCase):
    def refuse(self, code, fn, *needles):
        with self.assertRaises(attnviz.AttnvizError) as e:
            fn()
        self.assertEqual(e.exception.code, code, str(e.exception))
        for n in needles:
            self.assertIn(n, str(e.exception))
        return str(e.exception)

    def setUp(self):
        torch.manual_seed(0)
        self.mha = torch.nn.MultiheadAttention(16, 4, batch_first=True)

    def test_each_problem_is_a_sentence_before_anything_is_drawn(self):
        show = lambda *a, **k: attnviz.show(*a, display=False, **k)  # noqa: E731
        self.refuse("unsupported_module", lambda: show(torch.nn.Linear(4, 4), torch.randn(3, 4)),
                    "Linear", "nn.MultiheadAttention", "c_attn", "q_proj", "weight, bias")
        self.refuse("shape", lambda: show(self.mha, torch.randn(5, 8)), "x", "(5, 8)", "(5, 16)")
        self.refuse("batch_needs_index", lambda: show(self.mha, torch.randn(2, 5, 16)), "batch_index", "0 … 1")
        self.refuse("batch_index", lambda: show(self.mha, torch.randn(2, 5, 16), batch_index=2))
        self.refuse("too_long", lambda: show(self.mha, torch.randn(32769, 16)), "32769", "32768")
        self.refuse("tokens_count", lambda: show(self.mha, torch.randn(3, 16), ["a", "b"]), "2", "3")
        self.refuse("mask", lambda: show(self.mha, torch.randn(3, 16), attn_mask=torch.eye(3, dtype=torch.bool)))
        self.refuse("padding", lambda: show(self.mha, torch.randn(3, 16), key_padding_mask=torch.zeros(4, dtype=torch.bool)))
        self.refuse("lang", lambda: show(self.mha, torch.randn(3, 16), lang="fr"), "zh-CN")
        self.refuse("show_what", lambda: show(42), "int")
        bad = torch.nn.MultiheadAttention(8, 2, batch_first=True)
        with torch.no_grad():
            bad.out_proj.weight[1, 2] = float("inf")
        self.refuse("not_finite", lambda: show(bad, torch.randn(3, 8)), "weights.W_o", "inf")
        kv = torch.nn.MultiheadAttention(8, 2, add_bias_kv=True)
        self.refuse("unsupported_option", lambda: show(kv, torch.randn(3, 1, 8)), "add_bias_kv")
        self.refuse("heads", lambda: show(self.mha, torch.randn(3, 16), num_heads=3), "3", "16")

    def test_in_chinese_the_sentence_follows_in_chinese(self):
        text = self.refuse("shape", lambda: attnviz.show(self.mha, torch.randn(5, 8), lang="zh-CN", display=False))
        en, zh = text.split("\n")
        self.assertIn("does not fit", en)
        self.assertIn("形状不对", zh)

    def test_links_that_are_not_links(self):
        self.refuse("link_not_ours", lambda: attnviz.State.from_link("http://x/#hello"))
        self.refuse("link_format", lambda: attnviz.State.from_link("#s2.AAAA"), "2", "1")
        self.refuse("link_damaged", lambda: attnviz.State.from_link("#s1.@@@notdeflate"))


class StatesFilesLinks(unittest.TestCase, Close):
    def test_round_trips_keep_every_bit(self):
        torch.manual_seed(4)
        mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)
        st = attnviz.state_of(mha, torch.randn(1, 5, 8), causal=True)
        self.assertEqual(attnviz.State.from_safetensors(st.to_safetensors()), st)
        self.assertEqual(attnviz.State.from_link(st.link()), st)
        self.assertEqual(attnviz.State.from_link(st.link().split("#")[1]), st)
        with tempfile.TemporaryDirectory() as d:
            v = attnviz.show(st, display=False)
            for ext in ("json", "safetensors", "html"):
                v.save(os.path.join(d, "v." + ext))
            self.assertEqual(attnviz.state_of(os.path.join(d, "v.json")), st)
            self.assertEqual(attnviz.state_of(os.path.join(d, "v.safetensors")), st)
            # the CLI reads the state file Python wrote, as the app does
            self.assertWeights(attnviz.State(engine_file(os.path.join(d, "v.safetensors"))), weights_tensor(st))
            page = open(os.path.join(d, "v.html"), encoding="utf-8").read()
            self.assertIn("attnvizEmbed.mount", page)
            self.assertNotIn("http://", page.split("attnvizEmbed.mount")[1][:200])

    def test_weights_files_and_state_dicts_get_the_apps_mapping(self):
        torch.manual_seed(6)
        layers = [torch.nn.MultiheadAttention(8, 2, batch_first=True) for _ in range(3)]
        sd = {"layers.%d.attn.%s" % (i, k): v.detach().numpy() for i, m in enumerate(layers)
              for k, v in m.state_dict().items()}
        x = torch.randn(1, 4, 8)
        with tempfile.TemporaryDirectory() as d:
            np.savez(os.path.join(d, "w.npz"), **sd)
            for layer in (None, 2, "layers.1.attn"):
                i = {None: 0, 2: 2, "layers.1.attn": 1}[layer]
                st = attnviz.state_of(os.path.join(d, "w.npz"), x, num_heads=2, layer=layer)
                w = layers[i](x, x, x, need_weights=True, average_attn_weights=False)[1]
                self.assertWeights(st, w, "layer %r" % layer)
            with self.assertRaises(attnviz.AttnvizError) as e:
                attnviz.state_of(os.path.join(d, "w.npz"), x, layer=7)
            self.assertIn("layers.0.attn., layers.1.attn., layers.2.attn.", str(e.exception))
        st = attnviz.state_of(layers[0].state_dict(), x, num_heads=2)
        self.assertWeights(st, layers[0](x, x, x, need_weights=True, average_attn_weights=False)[1], "state_dict")
        with self.assertRaises(attnviz.AttnvizError) as e:
            attnviz.state_of({"fc.weight": np.zeros((2, 2))})
        self.assertEqual(e.exception.code, "no_mapping")

    def test_without_torch_arrays_files_and_states_still_show(self):
        torch.manual_seed(9)
        mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)
        x = torch.randn(1, 4, 8)
        want = attnviz.state_of(mha.state_dict(), x, num_heads=2)
        with tempfile.TemporaryDirectory() as d:
            np.savez(os.path.join(d, "w.npz"), **{k: v.numpy() for k, v in mha.state_dict().items()})
            np.save(os.path.join(d, "x.npy"), x.numpy())
            want.to_json() and attnviz.show(want, display=False).save(os.path.join(d, "s.json"))
            code = ("import sys; sys.modules['torch'] = None\n"      # import torch now fails
                    "import numpy as np, attnviz\n"
                    "v = attnviz.show(%r, np.load(%r), num_heads=2, display=False)\n"
                    "s = attnviz.show(%r, display=False)\n"
                    "print(v.state_object().to_json() == s.state_object().to_json(), len(v.html()) > 0)\n"
                    "try:\n    attnviz.capture(object(), 1)\nexcept attnviz.AttnvizError as e:\n    print(e.code)\n"
                    % (os.path.join(d, "w.npz"), os.path.join(d, "x.npy"), os.path.join(d, "s.json")))
            r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.split(), ["True", "True", "no_torch"])

    def test_a_view_outputs_the_app_and_its_state_and_no_more(self):
        torch.manual_seed(8)
        mha = torch.nn.MultiheadAttention(16, 4, batch_first=True)
        v = attnviz.show(mha, torch.randn(1, 6, 16), display=False, lang="zh-CN", height=500)
        html = v.html()
        self.assertIn('"lang": "zh-CN"', html)
        self.assertIn('"height": 500', html)
        state_bytes = len(v._mount_options()["stateFile"])
        # ≤ 1 MB per output besides the state's tensors (issue 34)
        self.assertLessEqual(len(html.encode("utf-8")) - state_bytes, 1 << 20)
        self.assertNotRegex(html, r"<script[^>]+src=|https?://(?!127\.0\.0\.1)")
        a, b = attnviz.show(mha, torch.randn(1, 6, 16), display=False), attnviz.show(mha, torch.randn(1, 6, 16), display=False)
        self.assertNotEqual(a.id, b.id)


def engine_file(path):
    """The state as the engine reads a .safetensors state file (attnviz-cli convert)."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "s.json")
        subprocess.run(CLI.split() + ["convert", path, out], check=True, capture_output=True)
        return json.load(open(out, encoding="utf-8"))


def weights_tensor(st):
    return torch.tensor(weights_of(engine(st)))


if __name__ == "__main__":
    unittest.main()
