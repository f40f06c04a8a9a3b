//! Near-duplicate topics by similarity, on real files: `check` reports index lines whose
//! title and hook words (case, punctuation, common words and plurals folded) are at least
//! `NEAR_DUPLICATE_SIMILARITY` alike; the default index pass merges only the pairs with
//! the same words, and never merges into a file it merges away; a write that links a
//! near-duplicate topic warns.

use std::fs;
use std::path::Path;

use memory_core::structured_memory::{
    Budgets, Compactor, DefaultCompactor, Fact, MemoryIndex, NEAR_DUPLICATE_SIMILARITY,
    StructuredMemory,
};
use proptest::prelude::*;

fn memory(dir: &Path, index_lines: usize) -> StructuredMemory {
    StructuredMemory::builder(dir)
        .budgets(Budgets::default().index_lines(index_lines))
        .fixed_time("2026-07-10T09:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

/// A directory with `MEMORY.md` linking each `(title, file, hook)` and each topic file
/// holding one entry.
fn directory(lines: &[(&str, &str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut index = String::from("# Memory\n\n");
    for (i, (title, file, hook)) in lines.iter().enumerate() {
        index.push_str(&format!("- [{title}]({file}) — {hook}\n"));
        fs::write(
            dir.path().join(file),
            format!(
                "# {title}\n\n- 2026-07-0{}: fact {i} of {file}\n",
                i % 9 + 1
            ),
        )
        .unwrap();
    }
    fs::write(dir.path().join("MEMORY.md"), index).unwrap();
    dir
}

/// `check`'s near-duplicate reports as (line, message).
fn reported(m: &StructuredMemory) -> Vec<(usize, String)> {
    m.check()
        .unwrap()
        .into_iter()
        .filter(|v| v.kind.as_str() == "near_duplicate_topics")
        .map(|v| (v.line, v.message))
        .collect()
}

#[test]
fn the_same_words_in_another_case_order_punctuation_or_plural_are_reported_and_merged() {
    let dir = directory(&[
        ("Infra", "memory-infra.md", "hosts, databases and backups"),
        ("Deploy", "memory-deploy.md", "pipeline order"),
        ("infra", "memory-infra-2.md", "Backups; the database, host."),
    ]);
    let d = dir.path();
    let m = memory(d, 4);
    let found = reported(&m);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, 5);
    assert!(
        found[0]
            .1
            .starts_with("memory-infra-2.md has the title and hook of memory-infra.md (line 3)"),
        "{}",
        found[0].1
    );
    m.compact(None, &DefaultCompactor, false).unwrap();
    assert!(!d.join("memory-infra-2.md").exists());
    let infra = fs::read_to_string(d.join("memory-infra.md")).unwrap();
    assert!(infra.contains("fact 0 of memory-infra.md"), "{infra}");
    assert!(infra.contains("fact 2 of memory-infra-2.md"), "{infra}");
    let archive = fs::read_to_string(d.join("memory-archive.md")).unwrap();
    assert!(archive.contains("fact 2 of memory-infra-2.md"), "{archive}");
    assert!(reported(&m).is_empty());
}

#[test]
fn at_the_threshold_a_pair_is_reported_but_only_similar_pairs_are_never_merged() {
    // 3 of 4 words alike (0.75): reported, not merged.
    let dir = directory(&[
        ("Infra", "memory-infra.md", "hosts, databases"),
        ("Infra", "memory-infra-2.md", "hosts, databases, backups"),
    ]);
    let d = dir.path();
    let m = memory(d, 3);
    let found = reported(&m);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].1.starts_with(
            "memory-infra-2.md has nearly the title and hook of memory-infra.md (line 3; 3 of 4 words alike)"
        ),
        "{}",
        found[0].1
    );
    let before_index = fs::read_to_string(d.join("MEMORY.md")).unwrap();
    let report = m.compact(None, &DefaultCompactor, false).unwrap();
    assert!(d.join("memory-infra-2.md").exists());
    assert_eq!(
        fs::read_to_string(d.join("MEMORY.md")).unwrap(),
        before_index
    );
    let index = report.files.iter().find(|f| f.file == "MEMORY.md").unwrap();
    let judgment = index.needs_judgment.as_ref().unwrap();
    // The pair it left is named for that judgment.
    assert!(
        judgment.message.ends_with(
            "; near-duplicate topics left to merge by judgment: memory-infra-2.md (line 4) and memory-infra.md (line 3)"
        ),
        "{}",
        judgment.message
    );
    assert_eq!(reported(&m).len(), 1);
}

#[test]
fn just_below_the_threshold_a_pair_is_not_reported() {
    for (a, b) in [
        // 2 of 3 words.
        (("Infra", "hosts"), ("Infra", "hosts, backups")),
        // 2 of 4: one word of each differs.
        (
            ("Deploy", "staging pipeline"),
            ("Deploy", "production pipeline"),
        ),
        // 5 of 7.
        (
            ("Release", "tags, notes, changelog, versions"),
            ("Release", "tags, notes, changelog, signing, mirrors"),
        ),
    ] {
        let dir = directory(&[(a.0, "memory-a.md", a.1), (b.0, "memory-b.md", b.1)]);
        let m = memory(dir.path(), 60);
        assert_eq!(reported(&m), [], "{a:?} {b:?}");
    }
    // 6 of 7 is above it.
    let dir = directory(&[
        (
            "Release",
            "memory-a.md",
            "tags, notes, changelog, versions, signing",
        ),
        (
            "Release",
            "memory-b.md",
            "tags, notes, changelog, versions, signing, mirrors",
        ),
    ]);
    assert_eq!(reported(&memory(dir.path(), 60)).len(), 1);
    assert_eq!(NEAR_DUPLICATE_SIMILARITY, 0.75);
}

#[test]
fn titles_that_share_no_word_tell_topics_apart_whatever_their_hooks() {
    // Swapped title and hook, and two topics restored from one compaction (one generated
    // hook): the titles differ, so neither pair is reported, nor merged.
    let dir = directory(&[
        ("Postgres", "memory-pg.md", "replicas"),
        ("Replicas", "memory-replicas.md", "postgres"),
        (
            "Infra",
            "memory-infra.md",
            "restored from the archive (c-20260710-001)",
        ),
        (
            "Deploy",
            "memory-deploy.md",
            "restored from the archive (c-20260710-001)",
        ),
    ]);
    let d = dir.path();
    let m = memory(d, 5);
    assert_eq!(reported(&m), []);
    m.compact(None, &DefaultCompactor, false).unwrap();
    for file in [
        "memory-pg.md",
        "memory-replicas.md",
        "memory-infra.md",
        "memory-deploy.md",
    ] {
        assert!(d.join(file).exists(), "{file}");
    }
    // One shared title word is enough for the words to be compared.
    let dir = directory(&[
        ("Deploy pipeline", "memory-a.md", "staging, order, hooks"),
        ("Pipeline", "memory-b.md", "deploy staging order hooks"),
    ]);
    assert_eq!(reported(&memory(dir.path(), 60)).len(), 1);
}

#[test]
fn a_line_is_paired_with_a_kept_line_so_no_merge_targets_a_file_merged_away() {
    // B is near A (3 of 4); C has B's words exactly but B is reported, so C is compared
    // with A only (3 of 4 again): reported against A, not merged; only D (A's words) is.
    let text = "- [Infra](memory-a.md) — hosts, dns\n\
                - [Infra](memory-b.md) — hosts, dns, backups\n\
                - [Infra](memory-c.md) — backups, dns, hosts\n\
                - [infra](memory-d.md) — DNS, hosts\n";
    let index = MemoryIndex::parse("MEMORY.md", text).unwrap();
    let merges = DefaultCompactor.merge_topics(&index).unwrap();
    assert_eq!(
        merges,
        [("memory-d.md".to_string(), "memory-a.md".to_string())]
    );
    let dir = directory(&[
        ("Infra", "memory-a.md", "hosts, dns"),
        ("Infra", "memory-b.md", "hosts, dns, backups"),
        ("Infra", "memory-c.md", "backups, dns, hosts"),
        ("infra", "memory-d.md", "DNS, hosts"),
    ]);
    let found = reported(&memory(dir.path(), 60));
    let lines: Vec<usize> = found.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, [4, 5, 6]);
    assert!(
        found.iter().all(|(_, m)| m.contains("memory-a.md (line 3")),
        "{found:?}"
    );
}

fn index_line() -> impl Strategy<Value = (String, String)> {
    let word = prop::sample::select(vec![
        "infra",
        "Infra",
        "hosts",
        "host",
        "DNS",
        "dns",
        "backups",
        "backup",
        "deploy",
        "Deploys",
        "the",
        "and",
        "pipeline",
        "order",
        "databases",
        "Database",
    ]);
    (
        prop::collection::vec(word.clone(), 1..3),
        prop::collection::vec(word, 1..5),
        prop::sample::select(vec![", ", " ", "; ", " and "]),
    )
        .prop_map(|(title, hook, sep)| (title.join(" "), hook.join(sep)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Whatever the index, the default merges are pairs `check` reports, each later file
    /// merged at most once, into a file that is never itself merged away.
    #[test]
    fn merges_are_reported_pairs_into_kept_files(lines in prop::collection::vec(index_line(), 1..8)) {
        let text: String = lines
            .iter()
            .enumerate()
            .map(|(i, (title, hook))| format!("- [{title}](memory-{i}.md) — {hook}\n"))
            .collect();
        let index = MemoryIndex::parse("MEMORY.md", &text).unwrap();
        let merges = DefaultCompactor.merge_topics(&index).unwrap();
        let from: Vec<&String> = merges.iter().map(|(f, _)| f).collect();
        for (f, into) in &merges {
            prop_assert!(!from.contains(&into), "{} into {} which is merged away: {}", f, into, text);
            prop_assert!(from.iter().filter(|x| **x == f).count() == 1);
        }
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("MEMORY.md"), &text).unwrap();
        for i in 0..lines.len() {
            fs::write(dir.path().join(format!("memory-{i}.md")), format!("# T\n\n- 2026-07-01: fact {i}\n")).unwrap();
        }
        let m = memory(dir.path(), 60);
        let reported_lines: Vec<usize> = reported(&m).iter().map(|(l, _)| *l).collect();
        for (f, _) in &merges {
            let i: usize = f.trim_start_matches("memory-").trim_end_matches(".md").parse().unwrap();
            prop_assert!(reported_lines.contains(&(i + 1)), "{} merged but not reported: {}", f, text);
        }
    }
}

#[test]
fn a_write_that_links_a_near_duplicate_topic_warns_naming_the_earlier_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let m = memory(d, 60);
    let first = m
        .remember(Fact::new("memory-infra.md", "web1 runs nginx").hook("hosts, databases"))
        .unwrap();
    assert!(first.warnings.is_empty(), "{:?}", first.warnings);
    let same = m
        .remember(
            Fact::new("memory-infra-2.md", "dns at the registrar")
                .title("Infra")
                .hook("Databases and hosts."),
        )
        .unwrap();
    assert_eq!(
        same.warnings,
        [
            "MEMORY.md:3: the line this write added for memory-infra-2.md has the title and hook of memory-infra.md (line 2): a session can hardly tell them apart; merge them, or give this one a hook that says what sets it apart"
        ]
    );
    let near = m
        .remember(
            Fact::new("memory-infra-3.md", "backups nightly")
                .title("Infra")
                .hook("hosts, databases, backups"),
        )
        .unwrap();
    assert_eq!(near.warnings.len(), 1, "{:?}", near.warnings);
    assert!(
        near.warnings[0].contains("has nearly the title and hook of memory-infra.md (line 2)"),
        "{:?}",
        near.warnings
    );
    // Another topic, and a write into an existing one: no warning.
    for fact in [
        Fact::new("memory-deploy.md", "blue-green").hook("pipeline order"),
        Fact::new("memory-infra-2.md", "dns TTL is 300"),
    ] {
        let out = m.remember(fact).unwrap();
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    }
}

/// Whether `check` reports the second of two index lines as a near duplicate of the first.
fn pair_reported(a: (&str, &str), b: (&str, &str)) -> bool {
    let dir = directory(&[(a.0, "memory-a.md", a.1), (b.0, "memory-b.md", b.1)]);
    let found = reported(&memory(dir.path(), 60));
    assert!(found.len() <= 1, "{found:?}");
    found.iter().any(|(line, _)| *line == 4)
}

#[test]
fn titles_in_scripts_without_spaces_are_compared_by_character_bigrams() {
    // Nearly the same: each pair differs by a character or a particle, which made their
    // whole runs (the old "words") differ.
    for (a, b) in [
        // Chinese: 7 of 9 bigrams alike.
        (
            ("基础设施", "主机、数据库和备份"),
            ("基础设施", "主机、数据库、备份"),
        ),
        // Japanese: an added の (12 of 15).
        (
            ("デプロイ手順", "ステージングと本番"),
            ("デプロイの手順", "ステージングと本番"),
        ),
        // Korean, which puts spaces between words but joins particles to them (8 of 9).
        (
            ("배포 절차", "스테이징과 프로덕션"),
            ("배포 절차", "스테이징, 프로덕션"),
        ),
        // Mixed Latin and Chinese (6 of 7).
        (
            ("Redis 缓存", "TTL 和淘汰策略"),
            ("redis 缓存", "TTL、淘汰策略"),
        ),
    ] {
        assert!(pair_reported(a, b), "{a:?} {b:?} not reported");
    }
    // Different topics: the titles or hooks share a few bigrams, or only a character.
    for (a, b) in [
        // One title bigram of four differs, and so the bigrams around it (6 of 10).
        (("数据库迁移", "步骤和回滚"), ("数据库备份", "步骤和回滚")),
        // Titles sharing a character but no bigram are told apart.
        (("部署流程", "负责人和时间"), ("部门联系人", "负责人和时间")),
        // The same title, other hooks (6 of 17).
        (
            ("デプロイ手順", "ステージング環境"),
            ("デプロイ手順", "本番環境の監視"),
        ),
        (
            ("배포 절차", "스테이징 서버"),
            ("배포 절차", "프로덕션 서버"),
        ),
        // The same Latin words and a long Chinese phrase on one side only: as one word it
        // made 6 of 8 alike; as bigrams it is 6 of 18.
        (
            ("Infra hosts", "dns backups mirrors signing 主机"),
            (
                "Infra hosts",
                "dns backups mirrors signing 数据库迁移计划和回滚步骤",
            ),
        ),
    ] {
        assert!(!pair_reported(a, b), "{a:?} {b:?} reported");
    }
}

#[test]
fn cjk_lines_with_the_same_bigrams_are_merged_by_the_default_index_pass() {
    let dir = directory(&[
        ("基础设施", "memory-infra.md", "主机、数据库"),
        ("部署", "memory-deploy.md", "流水线"),
        ("基础设施", "memory-infra-2.md", "数据库 主机。"),
    ]);
    let d = dir.path();
    let m = memory(d, 4);
    let found = reported(&m);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0]
            .1
            .starts_with("memory-infra-2.md has the title and hook of memory-infra.md (line 3)"),
        "{}",
        found[0].1
    );
    m.compact(None, &DefaultCompactor, false).unwrap();
    assert!(!d.join("memory-infra-2.md").exists());
    let infra = fs::read_to_string(d.join("memory-infra.md")).unwrap();
    assert!(infra.contains("fact 2 of memory-infra-2.md"), "{infra}");
    assert!(reported(&m).is_empty());
}
