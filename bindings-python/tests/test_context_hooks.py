"""ContextMemory's git sync and migration from Python, with real `git` repositories: hook
install (chaining a hook that was there, kept byte-identical) and uninstall, recording a
merge on main by `record_changes` and by the installed hook running the real `memcore`,
a branch other than main skipped, pending refresh cleared, migration with a broken entity,
the default root, and every error these raise as its exception class."""

from __future__ import annotations

import os
import pathlib
import shutil
import stat
import subprocess

import pytest

import memory_core
from memory_core import ContextMemory

from test_context_memory import check

FIXED = "2026-04-03T10:00:00Z"
REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")

# A hand-written hook that was there before ours: CRLF-free but odd bytes, its own mode.
EXISTING_HOOK = b"#!/bin/sh\n# the team's hook \xe2\x9c\x93\necho ran >> \"$(git rev-parse --git-dir)/team-hook.log\"\n"


def git(repo: pathlib.Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return done.stdout


def commit(repo: pathlib.Path, files: dict[str, str], message: str) -> None:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


@pytest.fixture
def repo(tmp_path: pathlib.Path) -> pathlib.Path:
    """A repository `Widget.App` on `main` with one commit, and a branch `feature` that
    changes `a.txt` and adds `docs/c d.md` (not merged)."""
    repo = tmp_path / "Widget.App"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    git(repo, "config", "user.name", "Test")
    git(repo, "config", "user.email", "test@example.com")
    git(repo, "config", "commit.gpgsign", "false")
    commit(repo, {"a.txt": "one\n", "b.txt": "two\n"}, "first")
    git(repo, "checkout", "-q", "-b", "feature")
    commit(repo, {"a.txt": "one more\n", "docs/c d.md": "# Notes\n"}, "feature work")
    git(repo, "checkout", "-q", "main")
    return repo


@pytest.fixture
def cm(tmp_path: pathlib.Path) -> ContextMemory:
    return ContextMemory(tmp_path / "memory", fixed_time=FIXED)


def memcore_binary() -> pathlib.Path | None:
    """The `memcore` the workspace built (test.sh builds target/debug/memcore first)."""
    for profile in ("debug", "release"):
        path = REPO_ROOT / "target" / profile / "memcore"
        if path.is_file() and os.access(path, os.X_OK):
            return path
    return None


def hooks_dir(repo: pathlib.Path) -> pathlib.Path:
    return repo / ".git" / "hooks"


def test_project_namespace_from_the_folder_then_the_origin_remote(repo: pathlib.Path) -> None:
    assert ContextMemory.project_namespace(repo) == "project.widget-app"
    (repo / "sub dir").mkdir()
    assert ContextMemory.project_namespace(str(repo / "sub dir")) == "project.widget-app"
    git(repo, "remote", "add", "origin", "git@github.com:Acme/Memory-Core.git")
    assert ContextMemory.project_namespace(repo) == "project.memory-core"
    git(repo, "remote", "set-url", "origin", "https://example.com/x/Ünïcode_Repo")
    # A name with letters outside ASCII still gives a valid project namespace.
    odd = ContextMemory.project_namespace(repo)
    assert odd.startswith("project.") and odd.endswith("code_repo")
    ContextMemory(repo.parent / "memory").namespace_dir(odd)


def test_install_chains_a_hook_kept_byte_identical_and_uninstall_restores_it(
    repo: pathlib.Path,
) -> None:
    hooks = hooks_dir(repo)
    (hooks / "post-merge").write_bytes(EXISTING_HOOK)
    os.chmod(hooks / "post-merge", 0o750)
    memcore = "/opt/memcore dir/memcore"
    report = ContextMemory.install_hooks(repo, memcore)
    seen: set[str] = set()
    check(report, memory_core.HooksReportDict, "install", seen)
    assert report["hooks_dir"] == str(hooks)
    assert [(h["hook"], h["action"]) for h in report["hooks"]] == [
        ("post-merge", "chained"),
        ("post-checkout", "installed"),
    ]
    assert [h["path"] for h in report["hooks"]] == [str(hooks / "post-merge"), str(hooks / "post-checkout")]
    kept = hooks / "memcore-chained" / "post-merge"
    assert kept.read_bytes() == EXISTING_HOOK
    assert stat.S_IMODE(kept.stat().st_mode) == 0o750
    for name in ("post-merge", "post-checkout"):
        script = (hooks / name).read_text(encoding="utf-8")
        assert "'/opt/memcore dir/memcore'" in script
        assert f"--trigger {name}" in script
        assert os.access(hooks / name, os.X_OK)
    again = ContextMemory.install_hooks(pathlib.Path(repo), memcore)
    assert [h["action"] for h in again["hooks"]] == ["unchanged", "unchanged"]
    moved = ContextMemory.install_hooks(repo, "/usr/local/bin/memcore")
    assert [h["action"] for h in moved["hooks"]] == ["updated", "updated"]
    assert kept.read_bytes() == EXISTING_HOOK

    removed = ContextMemory.uninstall_hooks(repo)
    assert [(h["hook"], h["action"]) for h in removed["hooks"]] == [
        ("post-merge", "restored"),
        ("post-checkout", "removed"),
    ]
    assert (hooks / "post-merge").read_bytes() == EXISTING_HOOK
    assert stat.S_IMODE((hooks / "post-merge").stat().st_mode) == 0o750
    assert not (hooks / "post-checkout").exists()
    assert not (hooks / "memcore-chained").exists()
    # Once ours are gone, the team's hook is theirs again: a second uninstall leaves it
    # alone and says ours are absent.
    second = ContextMemory.uninstall_hooks(repo)
    assert [h["action"] for h in second["hooks"]] == ["absent", "absent"]
    assert (hooks / "post-merge").read_bytes() == EXISTING_HOOK
    assert stat.S_IMODE((hooks / "post-merge").stat().st_mode) == 0o750
    (hooks / "post-merge").unlink()
    nothing = ContextMemory.uninstall_hooks(repo)
    assert [h["action"] for h in nothing["hooks"]] == ["absent", "absent"]


def test_install_hooks_root_is_written_into_the_scripts(repo: pathlib.Path, tmp_path: pathlib.Path) -> None:
    hooks = hooks_dir(repo)
    root = tmp_path / "team's memory"
    report = ContextMemory.install_hooks(repo, "/opt/memcore", root=root)
    assert [h["action"] for h in report["hooks"]] == ["installed", "installed"]
    quoted = "'" + str(root).replace("'", "'\\''") + "'"
    for name in ("post-merge", "post-checkout"):
        script = (hooks / name).read_text(encoding="utf-8")
        assert "memcore='/opt/memcore'\n" in script
        assert f'"$memcore" --root {quoted} context refresh --record --trigger {name}' in script
    same = ContextMemory.install_hooks(repo, memcore="/opt/memcore", root=str(root))
    assert [h["action"] for h in same["hooks"]] == ["unchanged", "unchanged"]
    # Without a root the scripts name none: the memcore's default root when git runs them.
    ContextMemory.install_hooks(repo, "/opt/memcore", root=None)
    assert "--root" not in (hooks / "post-merge").read_text(encoding="utf-8")
    with pytest.raises(memory_core.InvalidInputError, match="root"):
        ContextMemory.install_hooks(repo, "/opt/memcore", root=5)  # type: ignore[arg-type]
    ContextMemory.uninstall_hooks(repo)


def test_a_merge_on_main_is_recorded_then_cleared(
    repo: pathlib.Path, cm: ContextMemory, tmp_path: pathlib.Path
) -> None:
    git(repo, "merge", "-q", "feature")
    outcome = cm.record_changes(repo, "post-merge")
    seen: set[str] = set()
    check(outcome, memory_core.RecordOutcomeDict, "record", seen)
    assert outcome["namespace"] == "project.widget-app"
    pending_file = tmp_path / "memory" / "projects" / "widget-app" / "_pending_refresh.md"
    assert outcome["file"] == str(pending_file)
    assert outcome["skipped"] is None
    assert outcome["recorded"] == [
        {"path": "a.txt", "trigger": "post-merge", "timestamp": FIXED},
        {"path": "docs/c d.md", "trigger": "post-merge", "timestamp": FIXED},
    ]
    text = pending_file.read_text(encoding="utf-8")
    assert text.startswith("---\ntrigger: post-merge\ntimestamp: 2026-04-03T10:00:00Z\n---\n")
    assert "# Pending Knowledge Refresh" in text and "- docs/c d.md" in text

    # An entry citing a changed file is matched to it.
    cm.write(
        "project.widget-app",
        "decision",
        ["docs", "notes"],
        "Notes live in docs.",
        source_path="docs/c d.md",
    )
    pending = cm.pending_refresh("project.widget-app")
    assert [(p["change"]["path"], p["entries"]) for p in pending] == [
        ("a.txt", []),
        ("docs/c d.md", ["project.widget-app.decision.001"]),
    ]
    # A second run appends an `## Additional changes` section.
    git(repo, "checkout", "-q", "HEAD~1")
    git(repo, "checkout", "-q", "main")
    again = cm.record_changes(str(repo), trigger="post-checkout")
    assert [c["path"] for c in again["recorded"]] == ["a.txt", "docs/c d.md"]
    assert "## Additional changes (post-checkout at 2026-04-03T10:00:00Z)" in pending_file.read_text(
        encoding="utf-8"
    )

    report = cm.clear_refresh("project.widget-app", ["a.txt", "never-listed.rs"])
    check(report, memory_core.ClearReportDict, "clear", seen)
    assert report == {
        "cleared": ["a.txt"],
        "not_pending": ["never-listed.rs"],
        "remaining": 2,
        "removed_file": False,
    }
    assert [p["change"]["path"] for p in cm.pending_refresh("project.widget-app")] == [
        "docs/c d.md",
        "docs/c d.md",
    ]
    last = cm.clear_refresh("project.widget-app", ("docs/c d.md",))
    assert last["removed_file"] is True and last["remaining"] == 0
    assert not pending_file.exists()
    assert cm.pending_refresh("project.widget-app") == []


def test_a_hand_note_never_stops_recording_and_is_a_warning(
    repo: pathlib.Path, cm: ContextMemory, tmp_path: pathlib.Path
) -> None:
    git(repo, "merge", "-q", "feature")
    cm.record_changes(repo, "post-merge")
    pending_file = tmp_path / "memory" / "projects" / "widget-app" / "_pending_refresh.md"
    noted = pending_file.read_text(encoding="utf-8") + "Note: reviewed — ✓.\n"
    pending_file.write_text(noted, encoding="utf-8")
    git(repo, "checkout", "-q", "HEAD~1")
    git(repo, "checkout", "-q", "main")
    again = cm.record_changes(repo, "post-checkout")
    assert [c["path"] for c in again["recorded"]] == ["a.txt", "docs/c d.md"]
    assert pending_file.read_text(encoding="utf-8").startswith(noted)
    report = cm.pending_refresh_report("project.widget-app")
    check(report, memory_core.PendingReportDict, "pending report", set())
    assert [m["change"]["path"] for m in report["matches"]] == ["a.txt", "docs/c d.md"] * 2
    [warning] = report["warnings"]
    assert warning["path"] == str(pending_file)
    assert warning["line"] == noted.count("\n")
    assert "hand-written" in warning["message"]
    assert [m["change"]["path"] for m in cm.pending_refresh("project.widget-app")] == ["a.txt", "docs/c d.md"] * 2
    cm.clear_refresh("project.widget-app", ["a.txt"])
    assert "Note: reviewed — ✓." in pending_file.read_text(encoding="utf-8")


def test_a_branch_other_than_main_a_detached_head_and_a_first_checkout_record_nothing(
    repo: pathlib.Path, cm: ContextMemory, tmp_path: pathlib.Path
) -> None:
    git(repo, "checkout", "-q", "feature")
    outcome = cm.record_changes(repo, "post-checkout")
    check(outcome, memory_core.RecordOutcomeDict, "skipped", set())
    assert outcome["skipped"] == {"reason": "other_branch", "branch": "feature"}
    assert outcome["recorded"] == []
    git(repo, "checkout", "-q", "--detach", "main")
    assert cm.record_changes(repo)["skipped"] == {"reason": "detached_head"}
    fresh = tmp_path / "fresh"
    subprocess.run(["git", "init", "-q", "-b", "master", str(fresh)], check=True)
    assert cm.record_changes(fresh)["skipped"] == {"reason": "no_previous_head"}
    assert not (tmp_path / "memory").exists(), "nothing was written"


def test_the_installed_hook_records_a_merge_on_main_with_the_real_memcore(
    repo: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    memcore = memcore_binary()
    # Never skipped: bindings-python/scripts/test.sh builds the binary first.
    assert memcore is not None, (
        "target/debug/memcore is not built: run `cargo build -p memory-cli` "
        "(bindings-python/scripts/test.sh does)"
    )
    hooks = hooks_dir(repo)
    (hooks / "post-merge").write_bytes(EXISTING_HOOK)
    os.chmod(hooks / "post-merge", 0o755)
    ContextMemory.install_hooks(repo, memcore)
    root = tmp_path / "hooked-memory"
    env = dict(os.environ, MEMCORE_CONTEXT_ROOT=str(root))

    git(repo, "checkout", "-q", "feature", env=env)  # not main: nothing recorded
    git(repo, "checkout", "-q", "main", env=env)  # back on main: the branch switch is recorded
    memory = ContextMemory(root)
    after_checkout = memory.pending_refresh("project.widget-app")
    assert [(p["change"]["path"], p["change"]["trigger"]) for p in after_checkout] == [
        ("a.txt", "post-checkout"),
        ("docs/c d.md", "post-checkout"),
    ]
    memory.clear_refresh("project.widget-app", ["a.txt", "docs/c d.md"])

    git(repo, "merge", "-q", "feature", env=env)
    pending = memory.pending_refresh("project.widget-app")
    assert [(p["change"]["path"], p["change"]["trigger"]) for p in pending] == [
        ("a.txt", "post-merge"),
        ("docs/c d.md", "post-merge"),
    ]
    # The chained hook ran too, with its bytes untouched.
    assert (repo / ".git" / "team-hook.log").read_text(encoding="utf-8") == "ran\n"
    assert (hooks / "memcore-chained" / "post-merge").read_bytes() == EXISTING_HOOK
    ContextMemory.uninstall_hooks(repo)
    assert (hooks / "post-merge").read_bytes() == EXISTING_HOOK


def test_install_hooks_without_memcore_uses_the_one_on_path(
    repo: pathlib.Path, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert GIT is not None
    git_only = tmp_path / "git-only"
    git_only.mkdir()
    (git_only / "git").symlink_to(GIT)
    tools = tmp_path / "tools bin"
    tools.mkdir()
    stand_in = tools / "memcore"
    stand_in.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    os.chmod(stand_in, 0o755)
    not_executable = tmp_path / "plain"
    not_executable.mkdir()
    (not_executable / "memcore").write_text("not a program\n", encoding="utf-8")

    monkeypatch.setenv("PATH", os.pathsep.join(["", "relative", str(not_executable), str(git_only)]))
    with pytest.raises(memory_core.InvalidInputError, match="PATH") as info:
        ContextMemory.install_hooks(repo)
    assert info.value.code == "ERR_MEMORY_INVALID_INPUT"
    assert not (hooks_dir(repo) / "post-merge").exists(), "nothing installed"

    monkeypatch.setenv("PATH", os.pathsep.join([str(not_executable), str(tools), str(git_only)]))
    report = ContextMemory.install_hooks(repo, memcore=None)
    assert [h["action"] for h in report["hooks"]] == ["installed", "installed"]
    script = (hooks_dir(repo) / "post-merge").read_text(encoding="utf-8")
    assert f"memcore='{stand_in}'" in script


def test_migrate_imports_the_good_reports_the_broken_and_keeps_the_source(
    cm: ContextMemory, tmp_path: pathlib.Path
) -> None:
    source = tmp_path / "old-memory"
    (source / "global").mkdir(parents=True)
    good = (
        "---\r\n"
        "# hand-written, kept as it is\r\n"
        "entity_name: org.global.decision.007\r\n"
        "namespace: org.global\r\n"
        "category: decision\r\n"
        "status: accepted\r\n"
        "tags: [auth, 'security']\r\n"
        "created_at: 2025-01-01\r\n"
        "owner: \"platform team\"  # an unknown key\r\n"
        "---\r\n\r\nAuth uses JWT — signed with Ed25519.\r\n"
    )
    broken = "---\nentity_name: org.global.risk.002\nnamespace: org.global\ntags: [a, b\n---\nBody.\n"
    (source / "global" / "decision-007-auth.md").write_text(good, encoding="utf-8", newline="")
    (source / "global" / "risk-002-broken.md").write_text(broken, encoding="utf-8")
    (source / "global" / "_index.md").write_text("# old index\n", encoding="utf-8")
    (source / "notes.txt").write_bytes(b"\x00\x01 not markdown")
    before = {p.relative_to(source): p.read_bytes() for p in source.rglob("*") if p.is_file()}

    report = cm.migrate(source)
    check(report, memory_core.MigrationReportDict, "migrate", set())
    root = tmp_path / "memory"
    assert report["imported"] == [["org.global.decision.007", "org/global/decision-007-auth.md"]]
    reasons = {n["file"]: n["reason"] for n in report["not_imported"]}
    assert set(reasons) == {"global/risk-002-broken.md", "global/_index.md"}
    assert "line" in reasons["global/risk-002-broken.md"]
    assert report["other_files"] == 1
    backup = root / report["backup"]
    assert report["backup"].startswith("archive/migrated-")
    assert {p.relative_to(backup): p.read_bytes() for p in backup.rglob("*") if p.is_file()} == before
    after = {p.relative_to(source): p.read_bytes() for p in source.rglob("*") if p.is_file()}
    assert after == before, "the source is untouched"
    assert (root / "org/global/decision-007-auth.md").read_bytes() == good.encode("utf-8")
    entry = cm.get("org.global.decision.007")
    assert entry["tags"] == ["auth", "security"]
    assert [h["entity_name"] for h in cm.query(namespaces=["org.global"])] == ["org.global.decision.007"]
    # Again: the entity is already there, and a second backup is made beside the first.
    second = cm.migrate(str(source))
    assert second["imported"] == []
    assert "already in the memory" in {n["file"]: n["reason"] for n in second["not_imported"]}[
        "global/decision-007-auth.md"
    ]
    assert second["backup"] != report["backup"]


def test_migrate_refuses_secrets_and_reports_dangling_links(cm: ContextMemory, tmp_path: pathlib.Path) -> None:
    source = tmp_path / "old"
    source.mkdir()
    head = "---\nentity_name: org.global.decision.{n}\nnamespace: org.global\ncategory: decision\nstatus: accepted\ntags: [a, b]\ncreated_at: 2025-01-01\n"
    (source / "secret.md").write_text(head.format(n="001") + "---\n\nKey AKIAZ7QX3RT5WVB2KMNP here.\n", encoding="utf-8")
    (source / "linked.md").write_text(
        head.format(n="002") + "related_entities: [org.global.decision.404]\n---\n\nLinked.\n", encoding="utf-8"
    )
    before = {p.name: p.read_bytes() for p in source.iterdir()}
    report = cm.migrate(source)
    check(report, memory_core.MigrationReportDict, "migrate", set())
    # "linked.md" is not named like an entity (it would be foreign): imported renamed.
    assert report["imported"] == [["org.global.decision.002", "org/global/decision-002-linked.md"]]
    [refused] = report["not_imported"]
    assert refused["file"] == "secret.md"
    assert refused["reason"].startswith("body holds a secret (aws-access-key) on line 10 of the file")
    assert "AKIA" not in refused["reason"]
    assert report["dangling_links"] == [
        {"entity": "org.global.decision.002", "field": "related_entities", "target": "org.global.decision.404"}
    ]
    assert {p.name: p.read_bytes() for p in source.iterdir()} == before
    with pytest.raises(memory_core.NotFoundError):
        cm.get("org.global.decision.001")


def test_default_root_is_home_cursor_memory(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "hôme"))
    assert ContextMemory.default_root() == tmp_path / "hôme" / ".cursor" / "memory"
    assert not (tmp_path / "hôme").exists(), "nothing is created"
    monkeypatch.setenv("HOME", "")
    monkeypatch.delenv("USERPROFILE", raising=False)
    assert ContextMemory.default_root() is None
    monkeypatch.setenv("USERPROFILE", str(tmp_path))
    assert ContextMemory.default_root() == tmp_path / ".cursor" / "memory"


def test_every_error_is_its_exception_class(
    repo: pathlib.Path, cm: ContextMemory, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    for call in (
        lambda: ContextMemory.install_hooks(outside, "/bin/memcore"),
        lambda: ContextMemory.uninstall_hooks(outside),
        lambda: ContextMemory.project_namespace(outside),
        lambda: cm.record_changes(outside),
    ):
        with pytest.raises(memory_core.InvalidInputError, match="git") as info:
            call()
        assert isinstance(info.value, ValueError) and info.value.path == outside

    hooks = hooks_dir(repo)
    (hooks / "post-checkout").write_text("#!/bin/sh\necho theirs\n", encoding="utf-8")
    # Not ours and nothing kept: the user's hook, left alone.
    absent = ContextMemory.uninstall_hooks(repo)
    assert [h["action"] for h in absent["hooks"]] == ["absent", "absent"]
    assert (hooks / "post-checkout").read_text(encoding="utf-8") == "#!/bin/sh\necho theirs\n"
    ContextMemory.install_hooks(repo, "/bin/memcore")
    (hooks / "post-checkout").write_text("#!/bin/sh\necho another\n", encoding="utf-8")
    with pytest.raises(memory_core.ConflictError, match="already kept") as kept:
        ContextMemory.install_hooks(repo, "/bin/memcore")
    assert kept.value.code == "ERR_MEMORY_CONFLICT"
    # A foreign hook in ours' place over a kept one: refused, nothing changed.
    with pytest.raises(memory_core.ConflictError, match="not memory-core's hook") as conflict:
        ContextMemory.uninstall_hooks(repo)
    assert conflict.value.path == hooks / "post-checkout"
    assert (hooks / "post-checkout").read_text(encoding="utf-8") == "#!/bin/sh\necho another\n"

    with pytest.raises(memory_core.InvalidInputError, match="trigger"):
        cm.record_changes(repo, "pre-commit")  # type: ignore[arg-type]
    with pytest.raises(memory_core.InvalidInputError, match="repo"):
        cm.record_changes(5)  # type: ignore[arg-type]
    with pytest.raises(memory_core.InvalidInputError, match="done"):
        cm.clear_refresh("project.widget-app", "a.txt")
    with pytest.raises(memory_core.InvalidInputError, match="namespace"):
        cm.clear_refresh("project/../x", ["a.txt"])

    pending = tmp_path / "memory" / "projects" / "widget-app" / "_pending_refresh.md"
    pending.parent.mkdir(parents=True)
    pending.write_text("---\ntrigger: sometimes\ntimestamp: now\n---\n", encoding="utf-8")
    with pytest.raises(memory_core.MalformedFileError) as malformed:
        cm.clear_refresh("project.widget-app", ["a.txt"])
    assert malformed.value.path == pending and malformed.value.line is not None
    assert pending.read_text(encoding="utf-8").startswith("---\ntrigger: sometimes")

    with pytest.raises(memory_core.InvalidInputError, match="not a directory"):
        cm.migrate(tmp_path / "missing")
    with pytest.raises(memory_core.InvalidInputError, match="memory root"):
        cm.migrate(tmp_path)

    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(memory_core.MemoryIOError, match="git"):
        ContextMemory.project_namespace(repo)
