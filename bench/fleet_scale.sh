#!/usr/bin/env bash
# How fast `mimic fleet` signs and clusters a fleet of N traces (default
# 1,000) on this machine's cores, in one run and as 4 shards merged (a
# Slurm array's way), and whether the two agree.
#
#   bench/fleet_scale.sh [N] [generated|generated-et|real]
#
# generated (the default when `mimic generate` exists): Chakra traces of
#   gpt, llama, moe and dlrm training iterations at varied sizes and
#   parallelism, 8 ranks each, until there are N rank files.
# generated-et: GPT iterations as PyTorch ETs (`mimic generate --format et`,
#   real ATen ops), 2 ranks each (tensor or data parallel) at varied depth,
#   width and sequence length: recording directories (rankR/et.json +
#   meta.json), until there are N.
# real: N copies of the real traces in $MIMIC_TRACES_DIR (../shared/traces),
#   PyTorch ETs of four schema versions and Chakra files, in turn: each copy
#   is read and signed like any other file (the ETs are far bigger to parse
#   than the generated traces).
# MIMIC (default build/mimic) is the binary; FLEET_ARGS are added to each
# fleet command (e.g. "--max-k 40"); the fleet is made in a scratch
# directory that is removed at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mimic="${MIMIC:-$here/build/mimic}"
traces="${MIMIC_TRACES_DIR:-$here/../shared/traces}"
n="${1:-1000}"
mode="${2:-}"
if [ -z "$mode" ]; then
    if "$mimic" generate --help > /dev/null 2>&1; then mode=generated; else mode=real; fi
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/mimic-fleet-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
fleet="$work/fleet"
mkdir -p "$fleet"

count() { find "$fleet" -name '*.et' -o -name '*.json.gz' -o -name '*.json' | grep -vc comm_groups || true; }

make_generated() {
    local layers=(2 4 8 12 16 24 32) hidden=(512 1024 2048 4096) tps=(1 2 4 8) pps=(1 2) seqs=(512 1024 2048)
    local experts=(8 16) eps=(2 4 8) topk=(1 2) tables=(4 8 16 32 64) embdim=(32 64 128)
    local i=0 made=0
    while [ "$(count)" -lt "$n" ]; do
        local model=(gpt llama moe dlrm) dir="$fleet/job$i"
        mkdir -p "$dir"
        local m=${model[$((i % 4))]} j=$((i / 4))
        local args=()
        case "$m" in
            gpt|llama)
                local tp=${tps[$((j % 4))]} pp=${pps[$((j / 4 % 2))]}
                [ $((tp * pp)) -le 8 ] || pp=1
                args=(--ranks 8 --tp "$tp" --pp "$pp" --layers "${layers[$((j % 7))]}" --hidden "${hidden[$((j / 2 % 4))]}" --seq "${seqs[$((j % 3))]}")
                ;;
            moe) args=(--ranks 8 --ep "${eps[$((j % 3))]}" --layers "${layers[$((j % 4))]}" --experts "${experts[$((j / 3 % 2))]}" --top-k "${topk[$((j % 2))]}") ;;
            dlrm) args=(--ranks 8 --tables "${tables[$((j % 5))]}" --emb-dim "${embdim[$((j / 5 % 3))]}") ;;
        esac
        if "$mimic" generate "$m" "${args[@]}" -o "$dir/$m" > /dev/null 2> "$work/gen.err"; then
            made=$((made + 1))
        else
            echo "generate $m ${args[*]}: $(head -1 "$work/gen.err") (skipped)" >&2
            rm -rf "$dir"
        fi
        i=$((i + 1))
        [ "$i" -lt $((n * 4)) ] || { echo "generate keeps failing" >&2; exit 1; }
    done
    echo "generated: $made jobs of gpt/llama/moe/dlrm, 8 ranks each" >&2
}

make_generated_et() {
    local layers=(1 2 4 8 12) hidden=(64 128 256 512) seqs=(64 128 256) tps=(1 2)
    local i=0 made=0
    while [ "$(find "$fleet" -name et.json | wc -l)" -lt "$n" ]; do
        local args=(--ranks 2 --tp "${tps[$((i % 2))]}" --layers "${layers[$((i / 2 % 5))]}" --hidden "${hidden[$((i / 10 % 4))]}" --seq "${seqs[$((i / 40 % 3))]}")
        if "$mimic" generate gpt --format et "${args[@]}" -o "$fleet/job$i" > /dev/null 2> "$work/gen.err"; then
            made=$((made + 1))
        else
            echo "generate gpt --format et ${args[*]}: $(head -1 "$work/gen.err") (skipped)" >&2
        fi
        i=$((i + 1))
        [ "$i" -lt $((n * 4)) ] || { echo "generate keeps failing" >&2; exit 1; }
    done
    echo "generated-et: $made gpt jobs, 2 ranks each" >&2
}

make_real() {
    local sources=("$traces"/pytorch/*.json.gz "$traces"/pytorch/pt2/pt2_et.json "$traces"/chakra/feeder_sample.0.et "$traces"/chakra/microbench/*/*.0.et)
    local kept=()
    for s in "${sources[@]}"; do case "$s" in *kineto*) ;; *) kept+=("$s") ;; esac; done
    for ((i = 0; i < n; i++)); do
        local s=${kept[$((i % ${#kept[@]}))]}
        cp "$s" "$fleet/$i-$(basename "$s")"
    done
    echo "real: $n copies of ${#kept[@]} real traces" >&2
}

t0=$(date +%s.%N)
case "$mode" in
    generated) make_generated ;;
    generated-et) make_generated_et ;;
    *) make_real ;;
esac
# Exactly n members (files, or rank directories of ETs): those beyond the first n (by name) go.
if [ "$mode" = generated-et ]; then
    find "$fleet" -name et.json | sort | tail -n +$((n + 1)) | xargs -r -n1 dirname | xargs -r rm -rf
    members=$(find "$fleet" -name et.json | wc -l)
else
    find "$fleet" -type f ! -name '*.comm_groups.json' | sort | tail -n +$((n + 1)) | xargs -r rm -f
    members=$(find "$fleet" -type f ! -name '*.comm_groups.json' | wc -l)
fi
echo "fleet of $members traces ($(du -sh "$fleet" | cut -f1)) made in $(echo "$(date +%s.%N) - $t0" | bc) s" >&2

cores=$(nproc)
export MIMIC_NO_PROGRESS=1
/usr/bin/time -f "%e s wall, %U s user, %M KB max RSS" -o "$work/time.txt" "$mimic" fleet "$fleet" -o "$work/out" ${FLEET_ARGS:-} > "$work/table.txt" 2> "$work/err.txt"
echo "== mimic fleet, $n traces ($mode), $cores cores: $(cat "$work/time.txt")"
grep -E "^(fleet|times|clusters):|breakdown error" "$work/table.txt"

t1=$(date +%s.%N)
for i in 0 1 2 3; do "$mimic" fleet "$fleet" --shard "$i/4" -o "$work/part$i.json" 2> /dev/null; done
"$mimic" fleet merge "$work"/part?.json -o "$work/merged" ${FLEET_ARGS:-} > /dev/null 2>&1
echo "== 4 shards one after another + merge: $(echo "$(date +%s.%N) - $t1" | bc) s"
if cmp -s "$work/out/fleet.json" "$work/merged/fleet.json"; then echo "merged fleet.json is identical to the single run's"; else echo "MISMATCH between merged and single run"; exit 1; fi
