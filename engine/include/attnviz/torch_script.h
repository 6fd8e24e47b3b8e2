// attnviz/torch_script.h: a session state as a PyTorch script ("PyTorch code out").
//
// torch_script(state) writes a self-contained Python 3 script (torch and the
// standard library only) that rebuilds exactly this state the way the
// tutorials write it (same seeds, same draws in the same order, or the
// explicit values as literal tensors) and computes every stage with the
// tutorials' PyTorch lines. `python3 attnviz.py` prints each stage under a
// heading; `python3 attnviz.py --json` prints one JSON object in the report
// format of `attnviz-cli run` (report.h: same keys, shapes and order), so the
// two compare stage by stage. docs/engine.md, "PyTorch script", lists what
// each state field becomes.
//
// The shape of the output (the default state {}: tutorial 000, one head; the
// comments shortened here):
//
//   #!/usr/bin/env python3
//   # attnviz: this attention state as a PyTorch script. ...
//   #   python3 attnviz.py          prints every stage under a heading
//   #   python3 attnviz.py --json   prints one JSON object, the report of `attnviz-cli run`
//   import json
//   import math
//   import sys
//
//   import torch
//   import torch.nn as nn
//
//   JSON = "--json" in sys.argv[1:]
//
//   def show(title, value): ...   # print(title), print(value), unless --json
//   def numbers(t): ...           # --json: the report's float32 decimals
//   def matrix(t): ...
//
//   # --- Sizes
//   tokens = ["Once", "upon", "a", "time", "there"]
//   num_tokens = len(tokens)
//   d_model = 4  # ...
//   d_out = 4  # ...
//   num_heads = 1
//   head_dim = d_out // num_heads  # ...
//
//   # --- X: the token embeddings
//   vocab = list(dict.fromkeys(tokens))  # ...
//   token_to_idx = {token: idx for idx, token in enumerate(vocab)}
//   input_indices = torch.tensor([token_to_idx[token] for token in tokens])
//   torch.manual_seed(123)
//   embedding_layer = nn.Embedding(len(vocab), d_model)
//   X = embedding_layer(input_indices)
//   show("X, the token embeddings:", X)
//
//   # --- The weights
//   torch.manual_seed(123)
//   W_query = torch.rand(d_model, d_out)
//   W_key = torch.rand(d_model, d_out)
//   W_value = torch.rand(d_model, d_out)
//   show("W_query:", W_query) ...
//
//   # --- Queries, keys and values
//   queries = X @ W_query  ... keys, values
//   # --- Attention scores: every query against every key
//   attn_scores = queries @ keys.T
//   scaled_scores = attn_scores / math.sqrt(head_dim)
//   # --- Masking
//   masked_scores = scaled_scores  # nothing is masked
//   # --- Attention weights: softmax over the keys of each row
//   attn_weights = torch.softmax(masked_scores, dim=-1)
//   # --- Dropout on the attention weights
//   dropout = nn.Dropout(0.0)
//   dropout.eval()  # eval mode: dropout is the identity
//   dropped_weights = dropout(attn_weights)
//   # --- Context vectors: the values weighted by the attention weights
//   context_vec = dropped_weights @ values
//   # --- Output
//   output = context_vec  # no output projection: the output is the context
//
//   # --- The report (--json)
//   if JSON:
//       report = {"tokens": tokens, "X": matrix(X)}
//       report["W_q"] = matrix(W_query) ...
//       report["heads"] = [{"scores": matrix(attn_scores), ..., "context": matrix(context_vec)}]
//       report["concat"] = matrix(context_vec)
//       report["output"] = matrix(output)
//       print(json.dumps(report, separators=(",", ":")))
//
// Several heads split queries, keys and values into (num_heads, num_tokens,
// head_dim) with view + transpose and concatenate the context the same way
// back; nn.Linear weights (fused or one set per head), biases, the output
// projection, positions, masks, safe softmax and dropout each add their lines,
// and so do issue 23's variants, as the models write them: RoPE (Llama's
// rotate_half or GPT-J's rotate_every_two, giving q_rot and k_rot), fewer K/V
// heads (repeat_interleave, as Llama's repeat_kv), ALiBi (the paper's
// get_slopes; alibi_bias added before the mask) and Mistral's sliding window,
// and issue 36's: StreamingLLM's cache as one more mask (evicted), and gpt-oss's
// sinks as its sdpa() writes them (torch.cat of a sink column, softmax, [..., :-1]).
//
// Comments and printed headings come from a table of messages per language
// (torch_script_messages.cpp: English and 简体中文): adding a language is adding a table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "attnviz/state.h"
#include "attnviz/state_json.h"

namespace attnviz {

struct TorchScriptOptions {
  // Language of the comments and printed headings ("en", "zh-CN"). A language without
  // a table gets English (ask torch_script_has_language first).
  std::string language = "en";
  // A trained model's state (attnviz/model.h): where the script looks for the
  // model's checkpoints file by default (relative to where it runs; --weights overrides).
  std::string model_dir = "assets/models";
  // A state of captured layers (State::layers): the layer whose attention the script
  // computes, alone, on its captured input and weights (a comment says so); clamped
  // to the layers. The layers between are the learner's model's, not attnviz's.
  int layer = 0;
};

// The script for `s`, which must be valid (validate_state(s).ok: a state from
// parse_state or Pipeline::state() is). Deterministic: the same state and
// options give the same bytes on every build (native and WebAssembly).
std::string torch_script(const State& s, const TorchScriptOptions& options = {});

// The languages with a message table, "en" first.
std::vector<std::string> torch_script_languages();
bool torch_script_has_language(std::string_view language);
// The ids of the messages `language`'s table lacks (those fall back to English);
// empty for a complete table. For the tests that keep every table complete.
std::vector<int> torch_script_missing_messages(std::string_view language);

}  // namespace attnviz
