//! The context-memory invariant, as a property: after any sequence of write, update,
//! supersede, promote, split and heal — some of them failing at a random point with an
//! injected I/O error — every namespace's index rows and entity files are one-to-one,
//! no `supersedes` or `related_entities` link dangles, and every file parses.

use std::sync::{Arc, Mutex};

use memory_core::context_memory::{
    Category, ContextMemory, EntityName, EntryPatch, EntryStatus, Namespace, NewEntry, Query,
    SplitPlan,
};
use memory_core::durable::fault::{self, Phase};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Write {
        ns: usize,
        category: usize,
        tags: (usize, usize),
        words: usize,
        link: bool,
    },
    Update {
        pick: usize,
        status: usize,
    },
    Supersede {
        pick: usize,
        words: usize,
    },
    Promote {
        pick: usize,
    },
    PromoteTo {
        pick: usize,
        ns: usize,
    },
    Split {
        ns: usize,
    },
    Heal {
        ns: usize,
    },
}

const NAMESPACES: [&str; 4] = [
    "org.global",
    "project.app",
    "project.app.api",
    "project.web",
];
const TAGS: [&str; 6] = ["api", "ui", "ops", "auth", "db", "docs"];
const WORDS: [&str; 8] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
];

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (0..4usize, 0..8usize, (0..6usize, 0..6usize), 0..10_000usize, any::<bool>())
            .prop_map(|(ns, category, tags, words, link)| Op::Write { ns, category, tags, words, link }),
        2 => (any::<usize>(), 0..4usize).prop_map(|(pick, status)| Op::Update { pick, status }),
        2 => (any::<usize>(), 0..10_000usize).prop_map(|(pick, words)| Op::Supersede { pick, words }),
        1 => any::<usize>().prop_map(|pick| Op::Promote { pick }),
        1 => (any::<usize>(), 0..4usize).prop_map(|(pick, ns)| Op::PromoteTo { pick, ns }),
        1 => (0..4usize).prop_map(|ns| Op::Split { ns }),
        1 => (0..4usize).prop_map(|ns| Op::Heal { ns }),
    ]
}

fn body(seed: usize) -> String {
    format!(
        "Decision {} {} {} number {seed}.",
        WORDS[seed % 8],
        WORDS[(seed / 8) % 8],
        WORDS[(seed / 64) % 8]
    )
}

fn tags(pair: (usize, usize)) -> Vec<&'static str> {
    let b = if pair.0 == pair.1 {
        (pair.1 + 1) % 6
    } else {
        pair.1
    };
    vec![TAGS[pair.0], TAGS[b]]
}

/// Every entry's name, from the indexes (history included).
fn all_names(m: &ContextMemory) -> Vec<EntityName> {
    m.query(&Query::new().include_history(true).limit(usize::MAX))
        .map(|hits| hits.into_iter().map(|h| h.entity_name).collect())
        .unwrap_or_default()
}

fn run(m: &ContextMemory, op: &Op) -> memory_core::Result<()> {
    let names = all_names(m);
    let pick = |p: usize| names.get(p % names.len().max(1)).cloned();
    match op {
        Op::Write {
            ns,
            category,
            tags: t,
            words,
            link,
        } => {
            let mut new = NewEntry::new(
                NAMESPACES[*ns],
                Category::ALL[*category % 7],
                tags(*t),
                body(*words),
            )?
            .force_new(true);
            if *link && let Some(target) = pick(*words) {
                new = new.related(target);
            }
            m.write(new).map(drop)
        }
        Op::Update { pick: p, status } => match pick(*p) {
            Some(name) => m
                .update(
                    name.as_str(),
                    EntryPatch::new().status(EntryStatus::ALL[*status]),
                )
                .map(drop),
            None => Ok(()),
        },
        Op::Supersede { pick: p, words } => match pick(*p) {
            Some(name) => {
                let new = NewEntry::new(
                    name.namespace().as_str(),
                    name.category(),
                    ["api", "docs"],
                    body(*words),
                )?;
                m.supersede(name.as_str(), new).map(drop)
            }
            None => Ok(()),
        },
        Op::Promote { pick: p } => match pick(*p) {
            Some(name) => m.promote(name.as_str()).map(drop),
            None => Ok(()),
        },
        Op::PromoteTo { pick: p, ns } => match pick(*p) {
            Some(name) => m.promote_to(name.as_str(), NAMESPACES[*ns]).map(drop),
            None => Ok(()),
        },
        Op::Split { ns } => m
            .split(
                &Namespace::parse(NAMESPACES[*ns]).unwrap(),
                &SplitPlan::by_tag(),
            )
            .map(drop),
        Op::Heal { ns } => m
            .heal(&Namespace::parse(NAMESPACES[*ns]).unwrap())
            .map(drop),
    }
}

fn check_invariant(m: &ContextMemory) -> Result<(), TestCaseError> {
    for info in m
        .namespaces()
        .map_err(|e| TestCaseError::fail(e.to_string()))?
    {
        let drift = m
            .verify(&info.namespace)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(!drift.has_drift(), "{}: {:?}", info.namespace, drift);
        prop_assert!(drift.unreadable.is_empty(), "{:?}", drift.unreadable);
    }
    for name in all_names(m) {
        let entry = m
            .get(name.as_str())
            .map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
        for link in entry.supersedes.iter().chain(&entry.related_entities) {
            prop_assert!(
                m.get(link.as_str()).is_ok(),
                "{} links to missing {}",
                name,
                link
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn any_sequence_of_changes_keeps_rows_and_files_one_to_one_and_links_whole(
        ops in prop::collection::vec((op(), prop::option::weighted(0.25, 0..12usize)), 1..24)
    ) {
        let dir = tempfile::tempdir().unwrap();
        let m = ContextMemory::builder(dir.path()).fixed_time("2026-04-03T10:00:00Z").unwrap().open().unwrap();
        for (op, fail_at) in &ops {
            match fail_at {
                Some(k) => {
                    let k = *k;
                    let seen = Arc::new(Mutex::new(0usize));
                    fault::set_hook(Arc::new(move |_p: Phase, _s: usize| {
                        let mut n = seen.lock().unwrap_or_else(|p| p.into_inner());
                        *n += 1;
                        if *n == k + 1 { Err(std::io::Error::other("injected")) } else { Ok(()) }
                    }));
                    let _ = run(&m, op);
                    fault::clear_hook();
                }
                None => {
                    let _ = run(&m, op);
                }
            }
            check_invariant(&m)?;
        }
    }
}
