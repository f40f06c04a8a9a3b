//! `recall(query)` ranks topic files by their index lines: short queries (`a`, `db`, one
//! CJK character) match as whole words or word prefixes, common words count when the query
//! has nothing else, CJK text matches by its character bigrams, and the ranking is the same
//! however often it is asked, ties in index order.

use std::path::Path;

use memory_core::structured_memory::StructuredMemory;
use proptest::prelude::*;

fn memory(dir: &Path, index: &str) -> StructuredMemory {
    std::fs::write(dir.join("MEMORY.md"), index).unwrap();
    StructuredMemory::open(dir).unwrap()
}

fn files(m: &StructuredMemory, query: &str) -> Vec<String> {
    m.recall(query)
        .unwrap()
        .into_iter()
        .map(|h| h.line.file)
        .collect()
}

const INDEX: &str = "\u{feff}# Memory\r\n\
- [Auth](memory-auth.md) — api tokens, login\r\n\
- [A](memory-a.md) — the letter a itself\r\n\
- [Build](memory-build.md) — cargo, ci\r\n\
- [日本語メモ](memory-ja.md) — 日本 の 設定\r\n\
- [DB](memory-db.md) — postgres\r\n\
- [Deploy](memory-deploy.md) — db migrations\r\n";

#[test]
fn a_one_letter_query_matches_whole_words_first_then_prefixes() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path(), INDEX);
    let hits = m.recall("a").unwrap();
    let got: Vec<&str> = hits.iter().map(|h| h.line.file.as_str()).collect();
    // `A` is the title word itself; `Auth` starts with it (title, a quarter) and so does
    // `api` (hook): the title prefix ranks above.
    assert_eq!(got, ["memory-a.md", "memory-auth.md"], "{hits:?}");
    assert_eq!(hits[0].score, 1.0);
    assert!(hits[1].score > 0.0 && hits[1].score < hits[0].score);
    assert_eq!(files(&m, "A"), files(&m, "a"));
}

#[test]
fn two_letter_and_unicode_one_character_queries_match() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path(), INDEX);
    assert_eq!(files(&m, "db"), ["memory-db.md", "memory-deploy.md"]);
    assert_eq!(files(&m, "日"), ["memory-ja.md"]);
    assert_eq!(files(&m, "日本"), ["memory-ja.md"]);
    assert_eq!(files(&m, "設"), ["memory-ja.md"]);
    assert_eq!(files(&m, "d"), ["memory-db.md", "memory-deploy.md"]);
    assert!(files(&m, "z").is_empty());
    assert!(files(&m, "").is_empty());
    assert!(files(&m, " \t-- ").is_empty());
}

#[test]
fn a_query_of_common_words_only_asks_for_them() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path(), INDEX);
    assert_eq!(files(&m, "the"), ["memory-a.md"]);
    // Beside other words, common words still do not count.
    assert_eq!(files(&m, "the cargo"), ["memory-build.md"]);
}

#[test]
fn equal_scores_keep_index_order() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(
        dir.path(),
        "- [Zeta x](memory-z.md) — h\n- [Alpha x](memory-a.md) — h\n- [Mid x](memory-m.md) — h\n",
    );
    assert_eq!(
        files(&m, "x"),
        ["memory-z.md", "memory-a.md", "memory-m.md"]
    );
}

const WORDS: &[&str] = &[
    "a", "A", "ab", "日", "日本", "é", "É", "db", "deploy", "the", "x", "-", " ", "ß", "İ", "🦀",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Any query: no panic, scores in (0, 1], best first, ties in index order, and the
    /// same answer every time.
    #[test]
    fn any_query_ranks_stably(
        titles in proptest::collection::vec(proptest::collection::vec(proptest::sample::select(WORDS), 1..4), 1..6),
        query in proptest::collection::vec(proptest::sample::select(WORDS), 0..4),
        raw in "\\PC{0,6}",
    ) {
        let dir = tempfile::tempdir().unwrap();
        let index: String = titles
            .iter()
            .enumerate()
            .map(|(i, t)| format!("- [t{i} {}](memory-{i}.md) — {}\n", t.join(" ").replace(['[', ']'], ""), t.join("-")))
            .collect();
        let m = memory(dir.path(), &index);
        for query in [query.join(" "), raw] {
            let hits = m.recall(&query).unwrap();
            prop_assert_eq!(&hits, &m.recall(&query).unwrap());
            for pair in hits.windows(2) {
                prop_assert!(pair[0].score >= pair[1].score);
                if pair[0].score == pair[1].score {
                    prop_assert!(pair[0].line.line < pair[1].line.line);
                }
            }
            prop_assert!(hits.iter().all(|h| h.score > 0.0 && h.score <= 1.0));
        }
    }
}

#[test]
fn cjk_titles_and_hooks_are_matched_by_their_character_bigrams() {
    // A Chinese or Japanese phrase is one run of letters: matched whole or by prefix only,
    // `备份` (backup) did not find `数据库备份` (database backup). Bigrams find it.
    let dir = tempfile::tempdir().unwrap();
    let m = memory(
        dir.path(),
        "- [基础设施](memory-infra.md) — 主机和数据库备份\n\
         - [数据库迁移](memory-migrate.md) — 步骤和回滚\n\
         - [デプロイ手順](memory-deploy.md) — ステージングと本番\n\
         - [배포 절차](memory-ko.md) — 스테이징과 프로덕션\n",
    );
    assert_eq!(files(&m, "备份"), ["memory-infra.md"]);
    // In a title (2 points a bigram) above a hook (1).
    assert_eq!(
        files(&m, "数据库"),
        ["memory-migrate.md", "memory-infra.md"]
    );
    let hits = m.recall("数据库").unwrap();
    assert_eq!(hits[0].score, 1.0);
    assert_eq!(files(&m, "本番の手順"), ["memory-deploy.md"]);
    assert_eq!(files(&m, "프로덕션"), ["memory-ko.md"]);
    assert_eq!(files(&m, "Kubernetes 回滚"), ["memory-migrate.md"]);
    assert!(files(&m, "监控").is_empty());
}
