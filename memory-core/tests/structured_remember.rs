//! The seed's "Writing" rules on real files: one dated entry per fact, absolute dates,
//! a new topic and its index line in one step, merge on write with the replaced
//! generation archived, hand-kept bytes untouched, refusals that write nothing.

use std::path::Path;

use memory_core::ErrorKind;
use memory_core::structured_memory::{Budgets, Fact, StructuredMemory};

fn memory(dir: &Path) -> StructuredMemory {
    StructuredMemory::builder(dir)
        .fixed_time("2026-07-10T09:00:00+02:00")
        .unwrap()
        .open()
        .unwrap()
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap()
}

fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() != ".memcore.lock")
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap_or_default(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_first_fact_creates_the_index_the_topic_and_its_line_together() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    assert!(
        tree(dir.path()).is_empty(),
        "nothing before the first write"
    );
    let out = m
        .remember(
            Fact::new(
                "memory-project-x.md",
                "deploy hook must run BEFORE the version bump",
            )
            .subject("deploy hook")
            .date("yesterday")
            .title("Project X")
            .hook("build quirks, deploy pipeline"),
        )
        .unwrap();
    assert!(out.created_index && out.created_topic && out.linked);
    assert_eq!(out.entry.date.to_string(), "2026-07-09");
    insta::assert_snapshot!("new_memory_index", read(dir.path(), "MEMORY.md"));
    insta::assert_snapshot!("new_topic_file", read(dir.path(), "memory-project-x.md"));
    assert_eq!(out.budgets[0].file, "memory-project-x.md");
    assert_eq!(out.budgets[0].lines, 3);
    assert_eq!(out.budgets[0].lines_left, 147);
    assert_eq!(out.budgets[1].file, "MEMORY.md");
}

#[test]
fn merge_on_write_replaces_the_subject_in_place_and_archives_the_old_generation() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    let hook = "hosts, databases";
    m.remember(
        Fact::new("memory-infra.md", "Postgres 15")
            .subject("db")
            .date("2026-06-01")
            .hook(hook),
    )
    .unwrap();
    m.remember(
        Fact::new("memory-infra.md", "staging runs k3s")
            .subject("staging")
            .date("2026-06-02"),
    )
    .unwrap();
    let out = m
        .remember(
            Fact::new("memory-infra.md", "Postgres 16")
                .subject("DB")
                .date("2026-07-01"),
        )
        .unwrap();
    assert_eq!(out.replaced.len(), 1);
    assert_eq!(out.replaced[0].text, "Postgres 15");
    let id = out.archive_id.clone().unwrap();
    let topic = m.topic("memory-infra.md").unwrap();
    let texts: Vec<&str> = topic.entries.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(
        texts,
        ["Postgres 16", "staging runs k3s"],
        "replaced where it was"
    );
    let archive = read(dir.path(), "memory-archive.md");
    assert!(
        archive.contains(&format!(
            "## {id} · merge · memory-infra.md · 2026-07-10T07:00:00Z"
        )),
        "{archive}"
    );
    assert!(
        archive.contains("- 2026-06-01 [db]: Postgres 15\n"),
        "{archive}"
    );
    insta::assert_snapshot!("archive_after_merge", archive);

    // An older fact about the subject does not win: it goes to the archive.
    let older = m
        .remember(
            Fact::new("memory-infra.md", "Postgres 14")
                .subject("db")
                .date("2026-05-01"),
        )
        .unwrap();
    assert!(older.archived_as_older);
    assert_eq!(older.entry.text, "Postgres 16");
    assert!(read(dir.path(), "memory-archive.md").contains("- 2026-05-01 [db]: Postgres 14\n"));
    assert_eq!(m.topic("memory-infra.md").unwrap().entries.len(), 2);
}

#[test]
fn hand_kept_bytes_stay_identical() {
    let dir = tempfile::tempdir().unwrap();
    let topic = "---\r\nname: Infra\r\ndescription: hosts and deploys   # mine\r\ntype: project\r\n---\r\n# Infra\r\n\r\nHand prose.\r\n\r\n- 2026-06-01 [db]: Postgres 15\r\n- a hand note\r\n";
    std::fs::write(dir.path().join("memory-infra.md"), topic).unwrap();
    let index = "# Memory\r\n\r\n- [Infra](memory-infra.md) — hosts and deploys\r\n";
    std::fs::write(dir.path().join("MEMORY.md"), index).unwrap();
    let m = memory(dir.path());
    m.remember(Fact::new("memory-infra.md", "Postgres 16").subject("db"))
        .unwrap();
    let after = read(dir.path(), "memory-infra.md");
    assert_eq!(
        after,
        topic.replace(
            "- 2026-06-01 [db]: Postgres 15\r\n",
            "- 2026-07-10 [db]: Postgres 16\r\n"
        )
    );
    assert_eq!(
        read(dir.path(), "MEMORY.md"),
        index,
        "the index line was there: untouched"
    );
    m.remember(Fact::new("memory-infra.md", "k3s on staging"))
        .unwrap();
    assert!(
        read(dir.path(), "memory-infra.md")
            .ends_with("- a hand note\r\n- 2026-07-10: k3s on staging\r\n")
    );
}

#[test]
fn an_orphan_topic_gets_its_line_from_its_frontmatter() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("user_profile.md"),
        "---\nname: User profile\ndescription: senior Rust dev, prefers terse answers\ntype: user\n---\n\n- 2026-06-01: likes tables\n",
    )
    .unwrap();
    let m = memory(dir.path());
    let out = m
        .remember(Fact::new("user_profile.md", "prefers British spelling"))
        .unwrap();
    assert!(out.linked && out.created_index && !out.created_topic);
    let index = m.index().unwrap();
    assert_eq!(index.lines[0].title, "User profile");
    assert_eq!(
        index.lines[0].hook,
        "senior Rust dev, prefers terse answers"
    );
}

#[test]
fn refusals_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    m.remember(Fact::new("memory-infra.md", "Postgres 15").hook("hosts"))
        .unwrap();
    let before = tree(dir.path());
    let cases: Vec<(Fact, ErrorKind)> = vec![
        (
            Fact::new("memory-infra.md", "moved it").date("last week"),
            ErrorKind::InvalidInput,
        ),
        (
            Fact::new("memory-misc.md", "x").hook("misc"),
            ErrorKind::InvalidInput,
        ),
        (Fact::new("MEMORY.md", "x"), ErrorKind::InvalidInput),
        (Fact::new("memory-archive.md", "x"), ErrorKind::InvalidInput),
        (Fact::new("index.md", "x"), ErrorKind::InvalidInput),
        (
            Fact::new("../outside.md", "x").hook("h"),
            ErrorKind::InvalidInput,
        ),
        (
            Fact::new("memory-new.md", "no hook for a new topic"),
            ErrorKind::InvalidInput,
        ),
        (
            Fact::new("memory-infra.md", "key AKIAZ7QX3RT5WVB2KMNP"),
            ErrorKind::InvalidInput,
        ),
        (
            Fact::new("memory-infra.md", "ok")
                .hook("token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"),
            ErrorKind::InvalidInput,
        ),
        (
            Fact::new("memory-infra.md", "one\n\ntwo"),
            ErrorKind::InvalidInput,
        ),
        (
            Fact::new("memory-infra.md", "x").subject("a]b"),
            ErrorKind::InvalidInput,
        ),
        (Fact::new("memory-infra.md", ""), ErrorKind::InvalidInput),
        (
            Fact::new("notes.txt", "x").hook("h"),
            ErrorKind::InvalidInput,
        ),
    ];
    for (fact, kind) in cases {
        let shown = format!("{fact:?}");
        let err = m.remember(fact).unwrap_err();
        assert_eq!(err.kind(), kind, "{shown}: {err}");
        assert_eq!(tree(dir.path()), before, "{shown} wrote something");
    }
}

#[test]
fn the_index_comes_back_whole_with_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..70 {
        text.push_str(&format!("- [T{i}](memory-t{i}.md) — hook {i}\n"));
    }
    std::fs::write(dir.path().join("MEMORY.md"), &text).unwrap();
    let index = memory(dir.path()).index().unwrap();
    assert_eq!(index.lines.len(), 70, "never truncated");
    assert_eq!(index.budget.over_by_lines, 10);
    assert!(index.budget.warning().unwrap().contains("70 of 60 lines"));
}

#[test]
fn a_topic_named_in_another_case_is_the_linked_one_and_agent_memory_paths_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("MEMORY.md"),
        "- [User](USER.md) — role, preferences\n",
    )
    .unwrap();
    std::fs::write(d.join("USER.md"), "- 2026-06-01: prefers tables\n").unwrap();
    let m = memory(d);
    let out = m
        .remember(Fact::new("user.md", "prefers British spelling"))
        .unwrap();
    assert_eq!(out.file, "USER.md");
    assert!(!out.linked && !out.created_topic);
    assert!(
        std::fs::read_to_string(d.join("USER.md"))
            .unwrap()
            .contains("British spelling")
    );
    assert!(m.check().unwrap().is_empty(), "{:?}", m.check().unwrap());
    std::fs::create_dir_all(d.join("sessions")).unwrap();
    let before = tree(d);
    for topic in [
        "sessions/2026-07-01-0900-a.md",
        "sessions/memory-x.md",
        "archive/memory-x.md",
        "Archive/x.md",
    ] {
        let err = m.remember(Fact::new(topic, "x").hook("h")).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{topic}");
    }
    assert_eq!(tree(d), before);
}

#[test]
fn unicode_and_reserved_links_are_read_not_panicked_on() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("MEMORY.md"),
        "- [X](ää) — u\n- [Y](memory-é.md) — accent\n- [Z](memory-archive.md) — old stuff\n- [S](sessions/a.md) — agent\n",
    )
    .unwrap();
    std::fs::write(d.join("ää"), "x").unwrap();
    std::fs::write(d.join("memory-é.md"), "- 2026-07-01: fine\n").unwrap();
    let m = memory(d);
    let index = m.index().unwrap();
    assert_eq!(index.lines.len(), 1, "{index:?}");
    assert_eq!(index.unusable.len(), 2);
    assert!(
        m.recall("old stuff").unwrap().is_empty(),
        "the archive is never a topic to load"
    );
    let found = m.check().unwrap();
    assert!(
        found
            .iter()
            .any(|v| v.kind.as_str() == "unusable_link" && v.line == 3),
        "{found:?}"
    );
    assert!(
        m.compact(
            None,
            &memory_core::structured_memory::DefaultCompactor,
            true
        )
        .is_ok()
    );
}

/// Whichever fact is written about a subject — newer than every generation, between
/// them, or older than all — one generation stays live: the newest-dated; every other
/// (hand-written generations included) is in the archive and in the outcome's `replaced`.
#[test]
fn one_generation_stays_live_whatever_the_date_written() {
    for (date, live, older) in [
        ("2026-11-25", "new", false),
        ("2026-11-15", "on the 20th", true),
        ("2026-10-01", "on the 20th", true),
        ("2026-11-20", "new", false),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let topic = "# Net\n\n- 2026-11-01 [k]: on the 1st\n- 2026-11-20 [k]: on the 20th\n\nprose\n\n- 2026-11-10 [K]: on the 10th\n- 2026-11-05 [j]: other\n";
        std::fs::write(d.join("memory-net.md"), topic).unwrap();
        std::fs::write(d.join("MEMORY.md"), "- [Net](memory-net.md) — network\n").unwrap();
        let m = memory(d);
        let out = m
            .remember(Fact::new("memory-net.md", "new").subject("k").date(date))
            .unwrap();
        assert_eq!(out.archived_as_older, older, "{date}");
        let t = m.topic("memory-net.md").unwrap();
        let k: Vec<&str> = t
            .entries
            .iter()
            .filter(|e| {
                e.subject
                    .as_deref()
                    .is_some_and(|s| s.eq_ignore_ascii_case("k"))
            })
            .map(|e| e.text.as_str())
            .collect();
        assert_eq!(k, [live], "{date}: {}", t.text);
        assert!(
            t.text.contains("prose\n") && t.text.contains("[j]: other"),
            "{}",
            t.text
        );
        let archive = read(d, "memory-archive.md");
        for text in ["on the 1st", "on the 10th", "on the 20th", "new"] {
            assert_eq!(
                archive.contains(text),
                text != live,
                "{date}: {text}: {archive}"
            );
        }
        let replaced = out.replaced.len() + usize::from(older);
        assert_eq!(replaced, 3, "{date}: {:?}", out.replaced);
        assert!(
            !m.check()
                .unwrap()
                .iter()
                .any(|v| v.kind.as_str() == "contradicting_generations"),
            "{date}"
        );
    }
}

/// `restore` into a topic file whose index line was removed since (an orphan on disk)
/// links it again: a restored fact is never left where no session loads it.
#[test]
fn restore_into_an_unlinked_topic_links_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = memory(d);
    m.remember(
        Fact::new("memory-net.md", "dns on a")
            .subject("dns")
            .date("2026-06-01")
            .hook("network"),
    )
    .unwrap();
    let merged = m
        .remember(
            Fact::new("memory-net.md", "dns on b")
                .subject("dns")
                .date("2026-06-02"),
        )
        .unwrap();
    m.remember(Fact::new("memory-tools.md", "kept").hook("tools"))
        .unwrap();
    // The user removes the line by hand; the file stays.
    let index = read(d, "MEMORY.md");
    let without: String = index
        .lines()
        .filter(|l| !l.contains("memory-net.md"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(d.join("MEMORY.md"), &without).unwrap();
    let report = m.restore(merged.archive_id.as_deref().unwrap()).unwrap();
    assert_eq!(report.restored[0].lines, ["- 2026-06-01 [dns]: dns on a"]);
    let index = m.index().unwrap();
    let files: Vec<&str> = index.lines.iter().map(|l| l.file.as_str()).collect();
    assert_eq!(
        files,
        ["memory-tools.md", "memory-net.md"],
        "{}",
        index.text
    );
    assert!(
        index.text.starts_with(&without),
        "the rest kept byte for byte"
    );
    assert!(report.budgets.iter().any(|b| b.file == "MEMORY.md"));
    assert!(
        !m.check()
            .unwrap()
            .iter()
            .any(|v| v.kind.as_str() == "orphan_topic"),
        "{:?}",
        m.check().unwrap()
    );
}

/// A hand-kept CRLF archive (and one without a final line break) gets its sections in its
/// own line ending, from merge on write and from compaction, and still restores.
#[test]
fn a_crlf_archive_stays_crlf() {
    use memory_core::structured_memory::{Budgets, DefaultCompactor};
    for archive in [
        "# Memory archive\r\n\r\nkept by hand\r\n",
        "# Memory archive\r\n\r\nno final break",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("memory-archive.md"), archive).unwrap();
        let m = StructuredMemory::builder(d)
            .budgets(Budgets::default().topic_lines(4))
            .open()
            .unwrap();
        m.remember(
            Fact::new("memory-db.md", "v1")
                .subject("db")
                .date("2026-06-01")
                .hook("databases"),
        )
        .unwrap();
        let merged = m
            .remember(
                Fact::new("memory-db.md", "v2")
                    .subject("db")
                    .date("2026-06-02"),
            )
            .unwrap();
        for i in 0..3 {
            m.remember(
                Fact::new("memory-db.md", format!("other {i}"))
                    .subject(format!("s{i}"))
                    .date("2026-06-03"),
            )
            .unwrap();
        }
        m.compact(Some("memory-db.md"), &DefaultCompactor, false)
            .unwrap();
        let text = read(d, "memory-archive.md");
        assert!(text.starts_with(archive), "the old bytes kept");
        let bare_lf = text
            .match_indices('\n')
            .filter(|(i, _)| *i == 0 || text.as_bytes()[i - 1] != b'\r')
            .count();
        assert_eq!(bare_lf, 0, "{text:?}");
        assert!(text.contains("v1"), "{text:?}");
        let report = m.restore(merged.archive_id.as_deref().unwrap()).unwrap();
        assert_eq!(report.restored[0].lines, ["- 2026-06-01 [db]: v1"]);
    }
}

/// A budget of 0 lines or bytes is refused when the directory opens (`InvalidInput`
/// naming it): no file can meet it, so that every write would need judgment.
#[test]
fn a_budget_of_zero_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    for (budgets, named) in [
        (Budgets::default().index_lines(0), "index_lines"),
        (Budgets::default().topic_lines(0), "topic_lines"),
        (Budgets::default().index_bytes(Some(0)), "index_bytes"),
        (Budgets::default().topic_bytes(Some(0)), "topic_bytes"),
    ] {
        let err = StructuredMemory::builder(dir.path())
            .budgets(budgets)
            .open()
            .unwrap_err();
        assert_eq!(err.kind(), memory_core::ErrorKind::InvalidInput, "{err}");
        assert!(err.to_string().contains(named), "{err}");
    }
    let ones = Budgets::default()
        .index_lines(1)
        .topic_lines(1)
        .index_bytes(Some(1))
        .topic_bytes(Some(1));
    assert!(
        StructuredMemory::builder(dir.path())
            .budgets(ones)
            .open()
            .is_ok()
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// A new topic file takes the line ending of `MEMORY.md` (a directory kept in CRLF gets
/// CRLF topics, with or without a section), and its new index line follows the index's.
#[test]
fn a_new_topic_takes_the_index_s_line_ending() {
    for eol in ["\n", "\r\n"] {
        for section in [None, Some("Hosts")] {
            let dir = tempfile::tempdir().unwrap();
            let d = dir.path();
            let index = format!("# Memory{eol}- [A](memory-a.md) — a{eol}");
            std::fs::write(d.join("MEMORY.md"), &index).unwrap();
            std::fs::write(d.join("memory-a.md"), format!("# A{eol}")).unwrap();
            let m = memory(d);
            let mut fact = Fact::new("memory-n.md", "first line\nsecond line")
                .hook("new things")
                .date("2026-07-01");
            if let Some(s) = section {
                fact = fact.section(s);
            }
            m.remember(fact).unwrap();
            let topic = std::fs::read_to_string(d.join("memory-n.md")).unwrap();
            let heading = section.map_or(String::new(), |s| format!("## {s}{eol}{eol}"));
            assert_eq!(
                topic,
                format!("# N{eol}{eol}{heading}- 2026-07-01: first line{eol}  second line{eol}"),
                "{eol:?}"
            );
            let after = std::fs::read_to_string(d.join("MEMORY.md")).unwrap();
            assert_eq!(
                after,
                format!("{index}- [N](memory-n.md) — new things{eol}"),
                "{eol:?}"
            );
        }
    }
}

/// Without a date, a fact is about the one day before today (or today) its text names,
/// so that merge on write ranks it by when it happened; several days, a day to come, or a
/// date given leave it at the date given or today.
#[test]
fn a_fact_without_a_date_is_about_the_one_past_day_its_text_names() {
    for (text, date, expected) in [
        ("the deploy broke two days ago", None, "2026-07-08"),
        ("fixed it yesterday", None, "2026-07-09"),
        ("fixed it this morning", None, "2026-07-10"),
        ("broke on Monday, fixed yesterday", None, "2026-07-10"),
        ("we ship in 3 days", None, "2026-07-10"),
        ("no relative time here", None, "2026-07-10"),
        (
            "the deploy broke two days ago",
            Some("2026-07-01"),
            "2026-07-01",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut fact = Fact::new("memory-infra.md", text).hook("hosts");
        if let Some(date) = date {
            fact = fact.date(date);
        }
        let out = memory(dir.path()).remember(fact).unwrap();
        assert_eq!(out.entry.date.to_string(), expected, "{text:?} {date:?}");
    }
    // Merge on write: a later report of an earlier event does not replace what followed.
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    m.remember(
        Fact::new("memory-infra.md", "deploy fixed")
            .subject("deploy")
            .hook("hosts")
            .date("yesterday"),
    )
    .unwrap();
    let out = m
        .remember(Fact::new("memory-infra.md", "deploy broke two days ago").subject("deploy"))
        .unwrap();
    assert!(out.archived_as_older, "the older event goes to the archive");
    assert_eq!(
        m.topic("memory-infra.md").unwrap().entries[0].text,
        "deploy fixed"
    );
}
