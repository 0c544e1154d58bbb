"""Plan: verb names, clash resolution, ranking and selection, pack families."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from packc.curate.plan import MAX_VERBS, MIN_VERBS, name_operation, plan
from packc.read.overrides import OpOverride, Overrides

from .helpers import make_api, op, path_param


@pytest.mark.parametrize(
    ("method", "path", "expected"),
    [
        ("get", "/pets", "pets.list"),
        ("post", "/pets", "pets.create"),
        ("get", "/pets/{petId}", "pets.get"),
        ("patch", "/pets/{petId}", "pets.update"),
        ("delete", "/pets/{petId}", "pets.delete"),
        ("post", "/pets/{petId}/adopt", "pets.adopt"),
        ("get", "/api/v2/pets", "pets.list"),
        ("get", "/owners/{id}/pets", "owners.pets.list"),
        ("get", "/store/order/{orderId}", "store.order.get"),
        ("get", "/user/login", "user.login"),
        ("post", "/pet/findByStatus", "pet.find_by_status"),
        ("post", "/v1/{name}:cancel", "cancel"),
        ("post", "/jobs/{id}:cancel", "jobs.cancel"),
        ("get", "/status", "status.list"),
        # A search is the action on what it searches, at the end or the start of the path.
        ("get", "/v1/customers/search", "customers.search"),
        ("get", "/workspaces/{w}/tasks/search", "tasks.search"),
        ("post", "/engines/{id}/search", "engines.search"),
        ("get", "/search/issues", "issues.search"),
        # An RPC method is named as the API names it, whatever its response.
        ("get", "/conversations.info", "conversations.info"),
        ("get", "/conversations.history", "conversations.history"),
        ("post", "/chat.postMessage", "chat.post_message"),
        ("get", "/users.getPresence", "users.get_presence"),
        ("get", "/conversations.list", "conversations.list"),
    ],
)
def test_names_come_from_path_and_method(method: str, path: str, expected: str) -> None:
    resource, action = name_operation(op(method, path))
    assert ".".join([*resource, action]) == expected


def _names(*ops: object) -> dict[str, str]:
    result = plan(make_api(*ops), Overrides(), split=True)  # type: ignore[arg-type]
    return {v.op.key: v.name for p in result.packs for v in p.verbs}


def test_a_name_does_not_depend_on_unrelated_operations() -> None:
    base = [op("get", "/pets"), op("get", "/pets/{id}", parameters=(path_param("id"),))]
    before = _names(*base)
    after = _names(*base, op("get", "/owners"), op("post", "/owners"), op("delete", "/vets/{v}"))
    assert all(after[key] == name for key, name in before.items())


def test_clashes_resolve_deterministically_patch_keeps_update() -> None:
    ops = [
        op("put", "/pets/{id}", operation_id="replacePet"),
        op("patch", "/pets/{id}", operation_id="patchPet"),
    ]
    names = _names(*ops)
    assert names == {"PUT /pets/{id}": "pets.replace", "PATCH /pets/{id}": "pets.update"}
    assert _names(*reversed(ops)) == names


def test_clash_falls_back_to_operation_id_then_counter() -> None:
    names = _names(op("get", "/v1/pets"), op("get", "/v2/pets", operation_id="listBPets"), op("get", "/pets"))
    assert sorted(names.values()) == ["pets.list", "pets.list_b_pets", "pets.list_get"]


def test_a_derived_name_is_never_one_of_the_pack_clis_commands() -> None:
    # GET / named by its operationId alone would be "help": the CLI's own word (RESERVED_VERBS)
    names = _names(
        op("get", "/", operation_id="help"),
        op("post", "/", operation_id="connect"),
        op("get", "/{x}", operation_id="mcp", parameters=(path_param("x"),)),
        op("get", "/help"),
    )
    assert names == {
        "GET /": "help_get",
        "POST /": "connect.update",
        "GET /{x}": "mcp_get",
        "GET /help": "help.list",
    }


def test_a_verb_is_never_a_dotted_prefix_of_another() -> None:
    names = set(_names(op("get", "/pets/{id}/owner"), op("put", "/pets/{id}/owner")).values())
    assert not any(b.startswith(a + ".") for a in names for b in names)


def test_names_are_valid_and_short() -> None:
    long = "/" + "/".join(["averyveryverylongsegmentname"] * 6)
    names = _names(op("post", long, operation_id="x" * 100), op("get", "/{a}/{b}"), op("get", "/"))
    import re

    for name in names.values():
        assert len(name) <= 64
        assert re.fullmatch(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*", name), name


def _many(n: int) -> list[object]:
    ops = []
    for i in range(n):
        res = f"res{i // 5}"
        ops.append(
            op(
                ["get", "post", "get", "patch", "delete"][i % 5],
                f"/{res}" if i % 5 < 2 else f"/{res}/{{id}}" + ("" if i % 5 != 2 else "/sub"),
                tags=(f"tag{i // 10}",),
                summary="Documented." if i % 3 else "",
            )
        )
    return ops


def test_selection_keeps_twelve_and_says_why_the_rest_is_out() -> None:
    ops = [*_many(30), op("get", "/deep/a/b/c/d/e", summary="x"), op("get", "/old", deprecated=True)]
    result = plan(make_api(*ops), Overrides())  # type: ignore[arg-type]
    assert len(result.packs) == 1
    kept = {v.op.key for v in result.packs[0].verbs}
    assert len(kept) == MAX_VERBS
    assert len(result.left_out) == len(ops) - MAX_VERBS
    assert all("ranked" in lo.reason for lo in result.left_out)
    assert "GET /old" not in kept and "GET /deep/a/b/c/d/e" not in kept


def test_deprecated_and_undocumented_rank_below_core_operations() -> None:
    core = [op("get", f"/r{i}", summary="List.") for i in range(12)]
    result = plan(make_api(*core, op("get", "/r0/x/y", deprecated=True)), Overrides())  # type: ignore[arg-type]
    assert [lo.op.path for lo in result.left_out] == ["/r0/x/y"]


@pytest.mark.parametrize("n", [13, 40, 800])
def test_split_covers_every_operation_in_packs_of_five_to_twelve(n: int) -> None:
    ops = _many(n)
    result = plan(make_api(*ops, title="Big"), Overrides(), split=True)  # type: ignore[arg-type]
    covered = [v.op.key for p in result.packs for v in p.verbs]
    assert sorted(covered) == sorted(o.key for o in ops)  # type: ignore[attr-defined]
    assert all(MIN_VERBS <= len(p.verbs) <= MAX_VERBS for p in result.packs)
    ids = [p.id for p in result.packs]
    assert len(set(ids)) == len(ids) and all(i.startswith("big-") for i in ids)


def test_split_groups_by_tag_and_merges_small_groups() -> None:
    ops = [op("get", f"/a{i}", tags=("alpha",)) for i in range(6)] + [
        op("get", f"/b{i}", tags=("beta",)) for i in range(2)
    ]
    result = plan(make_api(*ops, title="T"), Overrides(), split=True)  # type: ignore[arg-type]
    assert [(p.id, len(p.verbs)) for p in result.packs] == [("t", 8)]


def test_overrides_exclude_rename_and_include() -> None:
    ops = [op("get", f"/r{i}") for i in range(14)] + [op("get", "/x/y/z/w", operation_id="special")]
    overrides = Overrides(
        ops={
            "GET /r0": OpOverride(exclude=True),
            "GET /r1": OpOverride(verb="first.one"),
            "GET /x/y/z/w": OpOverride(include=True),
        }
    )
    result = plan(make_api(*ops), overrides)  # type: ignore[arg-type]
    names = {v.name for v in result.packs[0].verbs}
    assert "first.one" in names and "r0.list" not in names
    assert any(v.op.key == "GET /x/y/z/w" for v in result.packs[0].verbs)
    assert [lo.reason for lo in result.left_out if lo.op.key == "GET /r0"] == ["excluded by x-packc"]


def test_plan_json_lists_kept_and_left_out() -> None:
    result = plan(make_api(*[op("get", f"/r{i}") for i in range(13)]), Overrides())  # type: ignore[arg-type]
    data = result.to_json()
    assert sum(len(p["verbs"]) for p in data["packs"]) == 12 and len(data["left_out"]) == 1
    assert {"verb", "method", "path", "reason"} <= set(data["left_out"][0])


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("GitHub v3 REST API", "github"),
        ("Pet Clinic", "pet-clinic"),
        ("API", "api"),
        ("", "api"),
        ("Ünïcode Shop", "unicode-shop"),
        ("3D Prints", "n3d-prints"),
    ],
)
def test_api_ids_from_titles(title: str, expected: str) -> None:
    from packc.curate.plan import api_slug

    assert api_slug(title) == expected


def test_many_clashing_long_names_stay_unique_and_short() -> None:
    # The resource words alone pass 64 characters, so every candidate name cuts to the same text:
    # the counter suffix must survive the cut (it once looped forever on AWS documents).
    tail = "/" + "a" * 40 + "/" + "b" * 40 + "/{id}"
    ops = [
        op("get", "".join(f"/{{p{j}}}" for j in range(i)) + tail, operation_id="x" * 80) for i in range(30)
    ]
    names = list(_names(*ops).values())
    assert len(set(names)) == len(names) == 30
    assert all(len(n) <= 64 for n in names)


def _crud(prefix: str, item: str) -> list[object]:
    """list/create on ``prefix`` and get/update/delete on ``prefix/{item}``: five operations."""
    one = f"{prefix}/{{{item}}}"
    return [op("get", prefix), op("post", prefix), op("get", one), op("patch", one), op("delete", one)]


def test_split_core_pack_holds_the_group_and_its_item_children_the_rest_by_sub_resource() -> None:
    # 20 operations under /charges: the core five, refunds (5), disputes (5), captures (5).
    ops = [
        *_crud("/v1/charges", "c"),
        *_crud("/v1/charges/{c}/refunds", "r"),
        *_crud("/v1/charges/{c}/disputes", "d"),
        *_crud("/v1/charges/{c}/captures", "p"),
        op("post", "/v1/charges/{c}/capture"),
    ]
    result = plan(make_api(*ops, title="Pay"), Overrides(), split=True)  # type: ignore[arg-type]
    packs = {p.id: sorted(f"{v.op.method} {v.op.path}" for v in p.verbs) for p in result.packs}
    assert len(packs) == 2 and all(MIN_VERBS <= len(v) <= MAX_VERBS for v in packs.values())
    # The pack with the group's own operations keeps the group's name, and takes the charge's action
    # and the list and create of what lies under a charge (as a person would: a charge, its refunds).
    core = packs["pay-charges"]
    assert "post /v1/charges/{c}/capture" in core and len(core) == 12
    for sub in ("refunds", "disputes", "captures"):
        assert {f"get /v1/charges/{{c}}/{sub}", f"post /v1/charges/{{c}}/{sub}"} <= set(core)
    other = next(i for i in packs if i != "pay-charges")
    assert other.startswith("pay-charges-") and other.removeprefix("pay-charges-") in (
        "refunds",
        "disputes",
        "captures",
    )
    assert all("/{r}" in p or "/{d}" in p or "/{p}" in p for p in packs[other])


def test_split_core_pack_takes_the_collections_of_its_noun_that_live_elsewhere() -> None:
    # Tag "repos": the repository item under /repos/{o}/{r} with many parts, and the list and create
    # of repositories where they live (/user/repos, /orgs/{org}/repos): one core pack holds them all.
    one = "/repos/{o}/{r}"
    parts = [
        op(m, f"{one}/{part}", tags=["repos"])
        for part in ("branches", "commits", "releases", "hooks", "keys")
        for m in ("get", "post")
    ]
    ops = [
        op("get", one, tags=["repos"]),
        op("patch", one, tags=["repos"]),
        op("delete", one, tags=["repos"]),
        *parts,
        *(op(m, p, tags=["repos"]) for p in ("/user/repos", "/orgs/{org}/repos") for m in ("get", "post")),
    ]
    result = plan(make_api(*ops, title="Git"), Overrides(), split=True)  # type: ignore[arg-type]
    pack_of = {f"{v.op.method} {v.op.path}": p.id for p in result.packs for v in p.verbs}
    assert {
        pack_of[k]
        for k in (
            "get /user/repos",
            "post /user/repos",
            "get /orgs/{org}/repos",
            "post /orgs/{org}/repos",
            f"get {one}",
            f"patch {one}",
        )
    } == {"git-repos"}
    assert all(MIN_VERBS <= len(p.verbs) <= MAX_VERBS for p in result.packs)
    # Where the group's body is elsewhere (tag "issues": /issues is one list, the body is under
    # /repos/...), the small sub named like the group takes nothing from it.
    issue = "/repos/{o}/{r}/issues"
    ops = [
        op("get", "/issues", tags=["issues"]),
        op("get", issue, tags=["issues"]),
        op("post", issue, tags=["issues"]),
        *(
            op(m, f"{issue}/{{n}}{tail}", tags=["issues"])
            for tail in ("", "/comments", "/labels", "/events", "/lock", "/assignees", "/reactions")
            for m in ("get", "post")
        ),
    ]
    result = plan(make_api(*ops, title="Git"), Overrides(), split=True)  # type: ignore[arg-type]
    pack_of = {f"{v.op.method} {v.op.path}": p.id for p in result.packs for v in p.verbs}
    assert pack_of[f"get {issue}"] == pack_of[f"post {issue}"] == pack_of[f"get {issue}/{{n}}"]


def test_split_groups_deep_paths_by_their_top_resource_not_their_last_words() -> None:
    # /v1/financial/accounts/... must not join /v1/accounts (names use the last two words; groups the first).
    ops = [*_crud("/v1/accounts", "a"), *_crud("/v1/financial/accounts", "f")]
    result = plan(make_api(*ops, title="Bank"), Overrides(), split=True)  # type: ignore[arg-type]
    packs = {p.id: {v.op.path.split("/")[2] for v in p.verbs} for p in result.packs}
    assert packs == {"bank-accounts": {"accounts"}, "bank-financial": {"financial"}}


def test_split_names_a_merge_of_unrelated_small_groups_after_its_parts() -> None:
    ops = [
        op("get", "/alpha"),
        op("post", "/alpha"),
        op("get", "/alpha/{a}"),
        op("get", "/beta"),
        op("post", "/beta"),
        op("get", "/gamma"),
    ]
    result = plan(make_api(*ops, title="Mix"), Overrides(), split=True)  # type: ignore[arg-type]
    assert [p.id for p in result.packs] == ["mix"]  # one pack left: the API's own id
    ops += [*_crud("/delta", "d"), *_crud("/epsilon", "e")]
    result = plan(make_api(*ops, title="Mix"), Overrides(), split=True)  # type: ignore[arg-type]
    assert sorted(p.id for p in result.packs) == ["mix-alpha-beta-gamma", "mix-delta", "mix-epsilon"]


def test_clashes_prefer_path_words_over_operation_ids() -> None:
    names = _names(
        op("get", "/v1/charges/{c}/dispute"),
        op("post", "/v1/charges/{c}/dispute", operation_id="postChargesDispute"),
        op("delete", "/runners/{r}/labels"),
        op("delete", "/runners/{r}/labels/{name}", operation_id="removeLabel"),
        op("get", "/orgs/{o}/actions/secrets/{s}/repos"),
        op("get", "/orgs/{o}/dependabot/secrets/{s}/repos", operation_id="depList"),
        op("get", "/user/dependabot/secrets/{s}/repos", operation_id="userDepList"),
        op("get", "/balance/history"),
        op("get", "/balance/history/{id}"),
    )
    assert names["POST /v1/charges/{c}/dispute"] == "charges.dispute.update"
    assert names["GET /v1/charges/{c}/dispute"] == "charges.dispute.get"  # a prefix of .update: lengthened
    assert {names["DELETE /runners/{r}/labels"], names["DELETE /runners/{r}/labels/{name}"]} == {
        "runners.labels.delete",
        "runners.labels.delete_all",
    }
    assert names["GET /orgs/{o}/actions/secrets/{s}/repos"] == "secrets.repos.list"
    assert names["GET /orgs/{o}/dependabot/secrets/{s}/repos"] == "dependabot.secrets.repos.list"
    assert names["GET /user/dependabot/secrets/{s}/repos"] == "user.secrets.repos.list"
    assert names["GET /balance/history/{id}"] == "balance.history.get"
    assert names["GET /balance/history"] == "balance.history.list"


def _pack(*ops: object) -> dict[str, str]:
    result = plan(make_api(*ops), Overrides())  # type: ignore[arg-type]
    return {v.op.key: v.name for p in result.packs for v in p.verbs}


def _scoped_api(*extra: object) -> list[object]:
    """Eleven operations, all inside /repos/{owner}/{repo}: the API's scope."""
    r = "/repos/{owner}/{repo}"
    return [
        op("get", f"{r}/issues"),
        op("post", f"{r}/issues"),
        op("get", f"{r}/issues/{{n}}"),
        op("get", f"{r}/pulls"),
        op("post", f"{r}/pulls"),
        op("put", f"{r}/pulls/{{n}}/merge"),
        op("get", f"{r}/issues/{{n}}/comments"),
        op("get", f"{r}/issues/comments"),
        op("get", r),
        op("get", f"{r}/labels"),
        op("post", f"{r}/labels"),
        *extra,
    ]


def test_a_pack_leaves_out_the_scope_word_its_arguments_carry() -> None:
    names = _pack(*_scoped_api(op("get", "/user/repos")))
    assert {names["GET /repos/{owner}/{repo}/issues"], names["POST /repos/{owner}/{repo}/pulls"]} == {
        "issues.list",
        "pulls.create",
    }
    assert names["GET /repos/{owner}/{repo}"] == "repos.get"  # nothing is left but the action
    assert names["PUT /repos/{owner}/{repo}/pulls/{n}/merge"] == "pulls.merge"
    # No parameter after "user": the word says whose repositories these are, so it stays.
    assert names["GET /user/repos"] == "user.repos.list"
    # Both comment lists are in the pack: each keeps what tells them apart.
    assert {
        names["GET /repos/{owner}/{repo}/issues/{n}/comments"],
        names["GET /repos/{owner}/{repo}/issues/comments"],
    } == {"repos.issues.comments.list", "issues.comments.list"}
    assert len(set(names.values())) == len(names)


def test_a_scope_word_stays_where_the_short_name_would_meet_another() -> None:
    # /issues (the caller's issues everywhere) is in the pack: the repository's issues keep "repos".
    names = _pack(*_scoped_api(op("get", "/issues")))
    assert names["GET /issues"] == "issues.list"
    assert names["GET /repos/{owner}/{repo}/issues"] == "repos.issues.list"
    assert names["POST /repos/{owner}/{repo}/issues"] == "issues.create"


def test_a_word_that_scopes_few_operations_stays() -> None:
    # /customers/{c}/sources: a customer's sources, in an API mostly elsewhere.
    ops = [op("get", f"/{w}") for w in ("a", "b", "c", "d", "e", "f", "g", "h", "i", "j")]
    names = _pack(*ops, op("get", "/customers/{c}/sources"), op("get", "/customers"))
    assert names["GET /customers/{c}/sources"] == "customers.sources.list"


def test_names_set_by_the_user_are_kept_in_a_pack() -> None:
    tags = op("get", "/repos/{owner}/{repo}/tags")
    result = plan(make_api(*_scoped_api(tags)), Overrides(ops={tags.key: OpOverride(verb="repos.tags.list")}))  # type: ignore[arg-type]
    names = {v.op.key: v.name for p in result.packs for v in p.verbs}
    assert names[tags.key] == "repos.tags.list" and names["GET /repos/{owner}/{repo}/labels"] == "labels.list"


def test_a_word_with_items_below_it_is_a_collection_though_a_verb_leads_it() -> None:
    names = _names(
        op("get", "/projects/{id}/merge_requests"),
        op("post", "/projects/{id}/merge_requests"),
        op("get", "/projects/{id}/merge_requests/{mr}"),
    )
    assert names["GET /projects/{id}/merge_requests"] == "projects.merge_requests.list"
    assert names["POST /projects/{id}/merge_requests"] == "projects.merge_requests.create"


def test_an_operation_id_that_spells_its_path_gives_only_what_the_path_does_not_say() -> None:
    names = _names(
        op("get", "/files/{file_id}", operation_id="get_files_id"),
        op("get", "/files/{file_id}#get_shared_link", operation_id="get_files_id_get_shared_link"),
        op("post", "/v1/sources/{source}/verify"),
        op("post", "/v1/sources/{source}/verify#x", operation_id="PostSourcesSourceVerify"),
    )
    assert names["GET /files/{file_id}#get_shared_link"] == "files.get_shared_link"
    # Nothing of its own: the method is the next distinction, never an echo of the action.
    assert names["POST /v1/sources/{source}/verify#x"] == "sources.verify_post"


def test_a_stub_may_name_verbs_as_their_pack_did() -> None:
    # issues.create is the repository's (its pack name); issues.list is /issues's own name, so it is
    # that one and not the repository's list, which a stub calls repos.issues.list.
    stub = dict.fromkeys(("issues.create", "issues.list", "pulls.merge", "repos.labels.list"), None)
    api = make_api(*_scoped_api(op("get", "/issues")))
    result = plan(api, Overrides(stub_verbs=stub))  # type: ignore[arg-type]
    names = {v.op.key: v.name for p in result.packs for v in p.verbs}
    assert names == {
        "POST /repos/{owner}/{repo}/issues": "issues.create",
        "GET /issues": "issues.list",
        "PUT /repos/{owner}/{repo}/pulls/{n}/merge": "pulls.merge",
        "GET /repos/{owner}/{repo}/labels": "repos.labels.list",
    }  # as the stub says


def _hand_api():  # type: ignore[no-untyped-def]
    ops = [op("get", f"/r{i}", summary=f"List r{i}") for i in range(14)]
    ops += [
        op("post", "/refunds", operation_id="PostRefunds", summary="Create a refund"),
        op("delete", "/x/{id}", summary="Remove an x"),
    ]
    return make_api(*ops, title="Shop")


@pytest.mark.parametrize("name", ["refunds.create", "PostRefunds", "POST /refunds", "post /refunds"])
def test_a_person_includes_and_excludes_by_verb_name_operation_id_or_method_and_path(name: str) -> None:
    api = _hand_api()
    result = plan(api, Overrides(), include=[name], exclude=["r0.list", "DELETE /x/{id}"])  # type: ignore[arg-type]
    kept = {v.op.key: v for v in result.packs[0].verbs}
    assert "POST /refunds" in kept and len(kept) == MAX_VERBS
    assert kept["POST /refunds"].reasons[0] == "included by --include (+1000)"
    reasons = {lo.op.key: lo.reason for lo in result.left_out}
    assert reasons["GET /r0"] == reasons["DELETE /x/{id}"] == "excluded by --exclude"
    others = [r for k, r in reasons.items() if k not in ("GET /r0", "DELETE /x/{id}")]
    assert others and all("--include keeps it" in r for r in others)


def test_an_include_that_names_nothing_says_what_is_close_and_nothing_is_planned() -> None:
    from packc.errors import UsageError

    api = _hand_api()
    with pytest.raises(
        UsageError, match=r"--include 'refund\.create' \(did you mean 'refunds\.create'.*names no operation"
    ):
        plan(api, Overrides(), include=["refund.create"])  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="name the same operation"):
        plan(api, Overrides(), include=["refunds.create"], exclude=["POST /refunds"])  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="--split already covers every operation"):
        plan(api, Overrides(), split=True, include=["refunds.create"])  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="a pack holds at most 12"):
        plan(api, Overrides(), include=[f"r{i}.list" for i in range(13)])  # type: ignore[arg-type]
    # --exclude works with --split: the excluded operation is in no pack.
    split = plan(api, Overrides(), split=True, exclude=["refunds.create"])  # type: ignore[arg-type]
    assert all(v.op.key != "POST /refunds" for p in split.packs for v in p.verbs)


@given(st.text(max_size=40))
def test_any_text_as_an_include_name_plans_or_is_a_usage_error(name: str) -> None:
    from packc.errors import UsageError

    api = _hand_api()
    try:
        result = plan(api, Overrides(), include=[name])  # type: ignore[arg-type]
    except UsageError as e:
        assert repr(name) in str(e) and "\x1b" not in str(e)
    else:
        assert any(v.override.by_hand for v in result.packs[0].verbs)


def test_names_as_a_pack_shows_them_work_and_a_name_of_two_operations_is_refused() -> None:
    from packc.errors import UsageError

    # GitHub-like: most paths sit under /repos/{owner}/{repo}, so inside a pack repos.issues.list is
    # issues.list, and GET /issues is issues.list API-wide.
    ops = [
        op(m, f"/repos/{{owner}}/{{repo}}/{noun}", summary=f"{m} {noun}")
        for noun in ("issues", "pulls", "labels", "milestones", "releases", "branches", "tags", "hooks")
        for m in ("get", "post")
    ]
    ops += [
        op("get", "/issues", summary="Issues assigned to you"),
        op("get", "/user", summary="The current user"),
    ]
    api = make_api(*ops, title="Hub")
    short = plan(api, Overrides(), include=["pulls.list"])  # type: ignore[arg-type]
    assert any(
        v.op.key == "GET /repos/{owner}/{repo}/pulls" and v.override.by_hand for v in short.packs[0].verbs
    )
    with pytest.raises(UsageError, match=r"'issues\.list' names 2 operations .*GET /issues.*say which one"):
        plan(api, Overrides(), exclude=["issues.list"])  # type: ignore[arg-type]
    kept = plan(api, Overrides(), exclude=["GET /issues"])  # type: ignore[arg-type]
    assert [lo.reason for lo in kept.left_out if lo.op.key == "GET /issues"] == ["excluded by --exclude"]
    with pytest.raises(UsageError, match=r"2 names match no operation.*'nope\.list'.*'GET /nowhere'"):
        plan(api, Overrides(), include=["nope.list"], exclude=["GET /nowhere"])  # type: ignore[arg-type]


def test_twelve_includes_are_twelve_verbs_and_a_task_keeps_them_too() -> None:
    ops = [op("get", f"/r{i}", summary=f"List r{i}") for i in range(20)] + [
        op("get", "/me", summary="Who am I")
    ]
    api = make_api(*ops, title="Shop")
    wanted = [f"r{i}.list" for i in range(8, 20)]
    result = plan(api, Overrides(), include=wanted)  # type: ignore[arg-type]
    assert sorted(v.name for v in result.packs[0].verbs) == sorted(
        wanted
    )  # the who-am-I takes no slot of theirs
    task = plan(api, Overrides(), include=wanted[:6], goal="list r1 r2 r3 r8 r9 r10")  # type: ignore[arg-type]
    assert set(wanted[:6]) <= {v.name for v in task.packs[0].verbs}


def test_an_included_deprecated_operation_warns_and_long_names_are_cut() -> None:
    from packc.errors import UsageError

    api = make_api(
        *[op("get", f"/r{i}") for i in range(14)], op("get", "/old", deprecated=True), title="Shop"
    )
    result = plan(api, Overrides(), include=["GET /old"])  # type: ignore[arg-type]
    assert [d.code for d in result.diagnostics] == ["C113"] and result.diagnostics[0].level == "warning"
    with pytest.raises(UsageError) as caught:
        plan(api, Overrides(), include=["x" * 100_000])  # type: ignore[arg-type]
    assert len(str(caught.value)) < 400


@pytest.mark.parametrize(
    ("path", "summary", "expected"),
    [
        (
            "/flags/{projectKey}",
            "Creates a new feature flag.",
            "flags.create",
        ),  # LaunchDarkly: under the project key
        ("/repositories/{workspace}/{repo_slug}", "Create a repository", "repositories.create"),  # Bitbucket
        ("/files/{path}", "Create or update a file", "files.update"),
        ("/flags/{projectKey}", "Copy a flag", "flags.update"),
    ],
)
def test_a_post_on_an_item_that_its_summary_says_creates_is_a_create(
    path: str, summary: str, expected: str
) -> None:
    result = plan(make_api(op("post", path, summary=summary)), Overrides())  # type: ignore[arg-type]
    assert [v.name for v in result.packs[0].verbs] == [expected]
