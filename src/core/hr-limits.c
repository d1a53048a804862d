/* hr-limits.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stddef.h>

#include "hr-limits.h"

#define MILLION INT64_C (1000000)

static const struct
{
  size_t      offset;
  const char *key;     /* the Hugging Face config key */
  int64_t     maximum;
  const char *detail;  /* a literal: HrError keeps the pointer */
} limits[] = {
  { offsetof (HrModel, n_layers), "num_hidden_layers", MILLION, "at most 1000000" },
  { offsetof (HrModel, hidden_size), "hidden_size", 10 * MILLION, "at most 10000000" },
  { offsetof (HrModel, n_heads), "num_attention_heads", MILLION, "at most 1000000" },
  { offsetof (HrModel, n_kv_heads), "num_key_value_heads", MILLION, "at most 1000000" },
  { offsetof (HrModel, head_dim), "head_dim", MILLION, "at most 1000000" },
  { offsetof (HrModel, ffn_size), "intermediate_size", 100 * MILLION, "at most 100000000" },
  { offsetof (HrModel, vocab_size), "vocab_size", 100 * MILLION, "at most 100000000" },
  { offsetof (HrModel, max_positions), "max_position_embeddings", 1000 * MILLION,
    "at most 1000000000" },
  { offsetof (HrModel, position_offset), "position_offset", MILLION, "at most 1000000" },
  { offsetof (HrModel, norms_per_layer), "norms_per_layer", 64, "at most 64" },
  { offsetof (HrModel, embed_proj_dim), "word_embed_proj_dim", 10 * MILLION, "at most 10000000" },
  { offsetof (HrModel, n_experts), "num_local_experts", MILLION, "at most 1000000" },
  { offsetof (HrModel, experts_per_token), "num_experts_per_tok", MILLION, "at most 1000000" },
  { offsetof (HrModel, n_shared_experts), "n_shared_experts", MILLION, "at most 1000000" },
  { offsetof (HrModel, zero_experts), "zero_expert_num", MILLION, "at most 1000000" },
  { offsetof (HrModel, index_heads), "index_n_heads", MILLION, "at most 1000000" },
  { offsetof (HrModel, index_head_dim), "index_head_dim", MILLION, "at most 1000000" },
  { offsetof (HrModel, expert_ffn_size), "moe_intermediate_size", 100 * MILLION,
    "at most 100000000" },
  { offsetof (HrModel, shared_expert_ffn_size), "shared_expert_intermediate_size", 100 * MILLION,
    "at most 100000000" },
  { offsetof (HrModel, first_dense_layers), "first_k_dense_replace", MILLION, "at most 1000000" },
  /* The layer pattern repeats with lcm (moe_layer_freq, sliding_window_pattern):
   * estimates walk one period of it. */
  { offsetof (HrModel, moe_layer_freq), "moe_layer_freq", 256, "at most 256" },
  { offsetof (HrModel, q_lora_rank), "q_lora_rank", MILLION, "at most 1000000" },
  { offsetof (HrModel, kv_lora_rank), "kv_lora_rank", MILLION, "at most 1000000" },
  { offsetof (HrModel, qk_rope_head_dim), "qk_rope_head_dim", MILLION, "at most 1000000" },
  { offsetof (HrModel, qk_nope_head_dim), "qk_nope_head_dim", MILLION, "at most 1000000" },
  { offsetof (HrModel, v_head_dim), "v_head_dim", MILLION, "at most 1000000" },
  { offsetof (HrModel, sliding_window), "sliding_window", 1000 * MILLION, "at most 1000000000" },
  { offsetof (HrModel, sliding_window_period), "sliding_window_pattern", 256, "at most 256" },
  { offsetof (HrModel, first_sliding_layer), "max_window_layers", MILLION, "at most 1000000" },
};

HrStatus
hr_model_check_limits (const HrModel *model,
                       HrError       *err)
{
  for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
    {
      int64_t value = *(const int64_t *) ((const char *) model + limits[i].offset);

      if (value > limits[i].maximum)
        return hr_error_set (err, HR_ERROR_OUT_OF_RANGE, limits[i].key, value,
                             limits[i].maximum, limits[i].detail);
    }
  return HR_OK;
}
