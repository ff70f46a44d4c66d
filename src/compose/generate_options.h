// What `mimic generate` is asked for: a model kind, its sizes and how it is
// split over ranks. Sizes left at 0 take the model's defaults
// (resolve_generate_options); anything that cannot be laid out on the ranks
// is refused with one error naming the option.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mimic::compose {

enum class GenModel : uint8_t { Gpt, Llama, Moe, Dlrm };
enum class GenSharding : uint8_t { None, Zero, Fsdp };  // DDP all-reduce, ZeRO-2 buckets, FSDP per layer
enum class GenSchedule : uint8_t { OneFOneB, GPipe };

struct GenerateOptions {
    GenModel model = GenModel::Gpt;
    // Parallelism; 0 = derived (ranks = dp x tp x pp; dp = ranks / (tp x pp)).
    int64_t ranks = 0, dp = 0, tp = 1, pp = 1, ep = 1;
    // Transformer sizes; 0 = the model's default.
    int64_t layers = 0, hidden = 0, heads = 0, kv_heads = 0, seq = 0, micro_batch = 0, micro_batches = 0;
    int64_t vocab = 0, ffn = 0, experts = 0, top_k = 0;
    // DLRM sizes.
    int64_t tables = 0, rows = 0, emb_dim = 0, dense_features = 0, pooling = 0;
    std::vector<int64_t> bottom_mlp, top_mlp;  // layer widths, the last is the output
    // Per table (dlrm): rows, lookups per sample and the rank that holds it.
    // Empty: every table --rows and --pooling, table t on rank t mod ranks.
    std::vector<int64_t> table_rows, table_pooling, table_ranks;
    std::string dtype = "bf16";                 // bf16 | fp16 | fp32
    GenSharding sharding = GenSharding::None;
    GenSchedule schedule = GenSchedule::OneFOneB;
    double bucket_mib = 25;  // DDP's default bucket_cap_mb

    int64_t dtype_bytes() const { return dtype == "fp32" ? 4 : 2; }
    // The dtype as a trace spells it, for device peaks ("c10::BFloat16").
    std::string dtype_trace_name() const;
    bool transformer() const { return model != GenModel::Dlrm; }
    int64_t layers_per_stage() const { return layers / pp; }
    int64_t head_dim() const { return hidden / heads; }
    // Megatron pads the vocabulary to a multiple of 128 x tp so that every
    // tensor-parallel shard of the embedding has the same rows.
    int64_t padded_vocab() const;
};

// "gpt" -> GenModel::Gpt; throws mimic::Error naming the argument otherwise.
GenModel parse_gen_model(const std::string& name);
const char* gen_model_name(GenModel m);
// "512-256-64" -> {512, 256, 64}; throws naming `option` on anything else.
std::vector<int64_t> parse_layer_widths(const std::string& text, const char* option);

// Fills every size left at 0 with the model's default and derives ranks/dp;
// then checks that the model fits the ranks. Throws mimic::Error whose text
// starts with the offending option ("--heads: 12 heads do not split over --tp 8").
void resolve_generate_options(GenerateOptions& o);

}  // namespace mimic::compose
