"""The ranking's weights, every one in one table: what tools/bench_curation.py tunes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["WEIGHTS", "Weights"]


def _core() -> Mapping[str, int]:
    return MappingProxyType({"list": 30, "get": 28, "create": 30, "update": 18, "delete": 8})


@dataclass(frozen=True, slots=True)
class Weights:
    """Points, log weights (``weight * log2(1 + n)``, at most ``cap``), shares and thresholds of
    each signal in ``packc.curate._signals``, in the order the signals run; docs/compile.md
    ("Selection") tells them in words. ``dataclasses.replace(WEIGHTS, ...)`` tries another."""

    # action: a core action's points (its keys are the core actions), any other action's
    core: Mapping[str, int] = field(default_factory=_core)
    other_action: int = 12
    # verb: a signature verb as the action; in the summary (on another action, on a core one);
    # creating a record whose noun is such an act; an everyday list or create
    signature_verb: int = 24
    summary_verb: int = 24
    summary_verb_core: int = 18
    act_noun: int = 18
    everyday_verb: int = 6
    # entry: who am I (base, plus per degree of sureness 1-3); else a search of the whole API
    entry: int = 8
    entry_per_sureness: int = 4
    global_search: int = 16
    # depth: per segment beyond the lower-quartile depth plus slack; a shallow path (at most max)
    deep_per_level: int = -5
    deep_slack: int = 1
    shallow: int = 6
    shallow_max_depth: int = 2
    # prominence: operations at or under the resource's path; under its parent item
    under_weight: float = 5
    under_cap: int = 30
    parent_weight: float = 2
    parent_cap: int = 12
    # centrality: other operations naming the noun; the share of it away from the noun's home
    mentions_weight: float = 4
    mentions_cap: int = 24
    away_share: float = 0.34
    # introduction: a noun the title or the first intro_lead characters of info.description name
    intro: int = 20
    intro_lead: int = 1000
    # object: other operations naming what an RPC call acts on
    object_weight: float = 4
    object_cap: int = 24
    # schema: component schemas referencing the one the operation returns
    schema_weight: float = 4
    schema_cap: int = 20
    # standalone: a create with nothing to list or read back; more in an API of such (this share)
    standalone: int = 16
    standalone_api: int = 28
    standalone_api_share: float = 0.3
    # crud: per core action of the resource, from this many
    crud_per_action: int = 3
    crud_min: int = 2
    # container: an item holding this share of the API's operations (from this many operations)
    container: int = -25
    container_share: float = 0.9
    container_min_ops: int = 20
    # tag order: at most this for the first declared tag, when the document declares at least
    # tag_min tags and fewer than tag_sorted_share of its neighbours are in alphabetical order
    tag_order: int = 12
    tag_min: int = 3
    tag_sorted_share: float = 0.7
    # text: a summary; a description longer than the median (log weight over the median, not
    # below floor); among the top 1/richest_part described (at least richest_min; from
    # richest_min_ops operations; over richest_over_median times the median)
    summary: int = 4
    description_weight: float = 5
    description_cap: int = 14
    description_floor: int = 20
    richest: int = 12
    richest_part: int = 100
    richest_min: int = 3
    richest_min_ops: int = 20
    richest_over_median: int = 4
    # body: a request body of at least body_min fields (log weight of fields / body_half)
    body_weight: float = 3
    body_cap: int = 10
    body_min: int = 4
    body_half: int = 2
    # penalties
    deprecated: int = -100
    admin: int = -40
    plumbing: int = -15
    admin_text: int = -10
    rare_method: int = -50
    directory_read: int = -15
    directory_management: int = -15


WEIGHTS = Weights()
