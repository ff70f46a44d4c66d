"""Process groups of a distributed job, for meta.json.

torch 1.13's execution trace shows a collective's ProcessGroup only as "<Object>", so a replay
cannot tell which ranks took part. We save the groups beside the trace:
- install() wraps torch.distributed.new_group to log every call in creation order, on every
  rank, including calls that return a group this rank is not a member of (a replay must make
  the same calls in the same order, since new_group is collective over the default group);
- snapshot() lists the default group, the logged groups, and any group the wrapper missed
  (created before install()) from torch's own tables.
Group names follow torch's: the default group is "0", later groups count up ("1", "2", ...),
the same names PyTorch 2.x writes as pg_name in its traces.
"""

import functools

import torch.distributed as dist

_created = []        # one dict per new_group call, in call order
_installed = False


def _c10d_tables():
    """(group -> {global rank: group rank}, group -> name, group -> backend) across torch versions."""
    c10d = dist.distributed_c10d
    world = getattr(c10d, "_world", None)
    if world is not None and hasattr(world, "pg_group_ranks"):
        ranks, names, pg_map = world.pg_group_ranks, world.pg_names, world.pg_map
    else:
        ranks = getattr(c10d, "_pg_group_ranks", {})
        names = getattr(c10d, "_pg_names", {})
        pg_map = getattr(c10d, "_pg_map", {})
    backends = {}
    for pg, entry in pg_map.items():
        backend = entry[0] if isinstance(entry, tuple) else entry
        backends[pg] = str(backend)
    return ranks, names, backends


def install():
    """Wraps torch.distributed.new_group (idempotent)."""
    global _installed
    if _installed or not dist.is_available():
        return
    original = dist.new_group

    @functools.wraps(original)
    def new_group(ranks=None, *args, **kwargs):
        group = original(ranks, *args, **kwargs)
        world_size = dist.get_world_size()
        members = sorted(int(r) for r in ranks) if ranks else list(range(world_size))
        table_ranks, names, backends = _c10d_tables()
        member = group in table_ranks
        _created.append({
            "pg_name": names.get(group) if member else None,
            "ranks": members,
            "group_size": len(members),
            "backend": backends.get(group) if member else str(kwargs.get("backend") or dist.get_backend()),
            "member": member,
            "group_rank": members.index(dist.get_rank()) if member else -1,
            "created_by": "new_group",
            "_group": group,
        })
        return group

    dist.new_group = new_group
    _installed = True


def snapshot():
    """JSON-ready {world_size, rank, backend, process_groups} or None when not distributed."""
    if not (dist.is_available() and dist.is_initialized()):
        return None
    rank, world_size = dist.get_rank(), dist.get_world_size()
    table_ranks, names, backends = _c10d_tables()
    default = dist.distributed_c10d._get_default_group()
    groups = [{
        "pg_name": names.get(default, "0"),
        "ranks": list(range(world_size)),
        "group_size": world_size,
        "backend": backends.get(default, str(dist.get_backend())),
        "member": True,
        "group_rank": rank,
        "created_by": "init_process_group",
    }]
    logged = {id(g["_group"]) for g in _created}
    for pg, mapping in table_ranks.items():
        if pg is default or id(pg) in logged:
            continue
        members = sorted(mapping)
        groups.append({
            "pg_name": names.get(pg), "ranks": members, "group_size": len(members),
            "backend": backends.get(pg), "member": True, "group_rank": mapping.get(rank, -1),
            "created_by": "before mimic_record was installed (order unknown)",
        })
    groups.extend({k: v for k, v in g.items() if k != "_group"} for g in _created)
    return {
        "rank": rank,
        "world_size": world_size,
        "backend": str(dist.get_backend()),
        "process_groups": groups,
    }
