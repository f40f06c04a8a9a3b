//! Property tests of the Agent Memory invariants over random operation sequences on a
//! random starting index:
//! - every row an operation does not touch stays byte-identical;
//! - `Referenced By` and `Continues From` agree both ways;
//! - no snapshot item is ever lost (it stays, possibly marked, live or in the archive);
//! - a referenced row is never deleted or archived;
//! - a failed operation leaves every file byte-identical.

mod support;

use std::collections::{BTreeMap, BTreeSet};

use memory_core::{
    ArchiveOutcome, ManualRegistration, OrganizeOptions, SessionId, SessionUpdate, Status,
};
use proptest::prelude::*;
use support::{Fixture, row_line};

#[derive(Debug, Clone)]
enum Op {
    Start(u8),
    Manual(u8, u8),
    Update {
        pick: usize,
        decision: u8,
        supersede: Option<usize>,
        done: bool,
    },
    Continue(usize, usize),
    Release(usize, usize),
    Organize {
        dry_run: bool,
        days: u32,
    },
    Archive(usize),
    Advance(u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => (0u8..3).prop_map(Op::Start),
        2 => (0u8..3, 0u8..3).prop_map(|(a, n)| Op::Manual(a, n)),
        4 => (any::<usize>(), 0u8..20, proptest::option::of(any::<usize>()), any::<bool>())
            .prop_map(|(pick, decision, supersede, done)| Op::Update { pick, decision, supersede, done }),
        3 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Op::Continue(a, b)),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Op::Release(a, b)),
        1 => (any::<bool>(), prop_oneof![Just(14u32), 1u32..30]).prop_map(|(dry_run, days)| Op::Organize { dry_run, days }),
        2 => any::<usize>().prop_map(Op::Archive),
        2 => (1u32..60 * 24 * 20).prop_map(Op::Advance),
    ]
}

/// A hand-written starting row: (status, days before the clock's start, summary).
fn seed_rows() -> impl Strategy<Value = Vec<(u8, u32, bool)>> {
    proptest::collection::vec((0u8..3, 0u32..40, any::<bool>()), 0..6)
}

fn initial_index(rows: &[(u8, u32, bool)]) -> String {
    let mut text = String::from(
        "Intro prose.\n\n| Session ID | Agent Name | Topic | Summary | Keywords | Status | Referenced By | Started At | Updated At |\n|:--|---|---|---|---|---|---|---|--:|\n",
    );
    for (i, (status, days, meaningful)) in rows.iter().enumerate() {
        let status = ["idle", "active", "stale"][*status as usize];
        let summary = if *meaningful {
            "Real work."
        } else {
            "sessionStart 自動註冊，尚未整理主題。"
        };
        let date = chrono::NaiveDate::from_ymd_opt(2026, 5, 25).unwrap()
            - chrono::Days::new(u64::from(*days));
        text.push_str(&format!(
            "|  seed-{i} | hand  | T{i} | {summary} | k | {status} | - | {date} | {date} 08:00 |\n"
        ));
    }
    text.push_str("\nOutro prose.\n");
    text
}

struct World {
    f: Fixture,
    /// Decisions each session's snapshot must keep.
    decisions: BTreeMap<SessionId, Vec<String>>,
}

impl World {
    fn ids(&self) -> Vec<SessionId> {
        self.f
            .memory
            .sessions()
            .unwrap()
            .into_iter()
            .map(|r| r.session_id)
            .collect()
    }

    fn pick(&self, n: usize) -> Option<SessionId> {
        let ids = self.ids();
        (!ids.is_empty()).then(|| ids[n % ids.len()].clone())
    }

    /// Runs `op`; returns the ids whose rows it may change (None = it failed).
    fn apply(&mut self, op: &Op) -> Option<BTreeSet<SessionId>> {
        let m = &self.f.memory;
        let mut touched = BTreeSet::new();
        let ok = match op {
            Op::Start(agent) => m
                .register_session_start(&format!("agent-{agent}"))
                .map(|id| touched.insert(id))
                .is_ok(),
            Op::Manual(agent, n) => {
                let mut reg =
                    ManualRegistration::new(format!("agent-{agent}"), "Topic", "Summary.");
                let texts: Vec<String> = (0..*n).map(|i| format!("manual decision {i}")).collect();
                for t in &texts {
                    reg = reg.decision(t.clone());
                }
                match m.register_manual(reg) {
                    Ok(id) => {
                        self.decisions.insert(id.clone(), texts);
                        touched.insert(id);
                        true
                    }
                    Err(_) => false,
                }
            }
            Op::Update {
                pick,
                decision,
                supersede,
                done,
            } => {
                let Some(id) = self.pick(*pick) else {
                    return Some(touched);
                };
                let text = format!("decision {decision} for {id}");
                let mut update = SessionUpdate::new().decision(text.clone());
                let known = self.decisions.get(&id).cloned().unwrap_or_default();
                if let (Some(s), false) = (supersede, known.is_empty()) {
                    update = update.supersede(known[s % known.len()].clone());
                }
                if *done {
                    update = update
                        .next_action(format!("action for {id}"))
                        .done(format!("action for {id}"));
                }
                touched.insert(id.clone());
                match m.update(id.as_str(), update) {
                    Ok(_) => {
                        self.decisions.entry(id).or_default().push(text);
                        true
                    }
                    Err(_) => false,
                }
            }
            Op::Continue(a, b) | Op::Release(a, b) => {
                let (Some(current), Some(source)) = (self.pick(*a), self.pick(*b)) else {
                    return Some(touched);
                };
                touched.insert(current.clone());
                touched.insert(source.clone());
                let result = if matches!(op, Op::Continue(..)) {
                    m.continue_from(current.as_str(), source.as_str())
                        .map(|_| ())
                } else {
                    m.release(current.as_str(), source.as_str()).map(|_| ())
                };
                if result.is_ok() && matches!(op, Op::Continue(..)) {
                    self.decisions.entry(current).or_default();
                }
                result.is_ok()
            }
            Op::Organize { dry_run, days } => {
                match m.organize(
                    OrganizeOptions::default()
                        .dry_run(*dry_run)
                        .stale_after_days(*days),
                ) {
                    Ok(report) => {
                        touched.extend(report.deleted_idle);
                        touched.extend(report.marked_stale);
                        true
                    }
                    Err(_) => false,
                }
            }
            Op::Archive(pick) => {
                let Some(id) = self.pick(*pick) else {
                    return Some(touched);
                };
                let sources = m
                    .snapshot(id.as_str())
                    .unwrap()
                    .map(|s| s.continues_from)
                    .unwrap_or_default();
                touched.insert(id.clone());
                touched.extend(sources);
                match m.archive(id.as_str()) {
                    Ok(ArchiveOutcome::Deleted { session_id, .. }) => {
                        assert!(
                            !self.decisions.contains_key(&session_id),
                            "a session with a snapshot was deleted"
                        );
                        true
                    }
                    Ok(_) => true,
                    Err(_) => false,
                }
            }
            Op::Advance(minutes) => {
                self.f.clock.advance_minutes(i64::from(*minutes));
                true
            }
        };
        ok.then_some(touched)
    }

    fn check_invariants(&self) {
        let m = &self.f.memory;
        let rows = m.sessions().expect("the index always parses");
        let by_id: BTreeMap<_, _> = rows.iter().map(|r| (r.session_id.clone(), r)).collect();
        for row in &rows {
            assert!(!["closed", "archived"].contains(&row.status.as_str()));
            if let Some(snapshot) = m.snapshot(row.session_id.as_str()).unwrap() {
                for source in &snapshot.continues_from {
                    if let Some(s) = by_id.get(source) {
                        assert!(
                            s.referenced_by.contains(&row.session_id),
                            "{source} misses referrer {}",
                            row.session_id
                        );
                    }
                }
                assert_ne!(row.status, Status::Idle, "an idle row never has a snapshot");
            }
            for referrer in &row.referenced_by {
                let snapshot = m
                    .snapshot(referrer.as_str())
                    .unwrap()
                    .expect("a referrer has a snapshot");
                assert!(
                    snapshot.continues_from.contains(&row.session_id),
                    "{referrer} does not continue from {}",
                    row.session_id
                );
                assert!(
                    by_id.contains_key(referrer),
                    "referrer {referrer} has no row"
                );
            }
        }
        for (id, decisions) in &self.decisions {
            let live = m.session_path(id.as_str()).unwrap();
            let archived = m.archive_dir(id.as_str()).unwrap().join("session.md");
            let path = if live.exists() { live } else { archived };
            let text =
                std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("snapshot of {id} lost"));
            for d in decisions {
                assert!(
                    text.contains(d.as_str()),
                    "{id} lost decision {d:?}:\n{text}"
                );
            }
            if !by_id.contains_key(id) {
                assert!(
                    m.archive_dir(id.as_str())
                        .unwrap()
                        .join("index.md")
                        .exists(),
                    "{id} left without archive"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_operation_sequences_keep_every_invariant(seed in seed_rows(), ops in proptest::collection::vec(op(), 1..24)) {
        let f = Fixture::with_index(&initial_index(&seed));
        let mut world = World { f, decisions: BTreeMap::new() };
        for op in &ops {
            let before_tree = world.f.tree();
            let before_index = world.f.index_text();
            let before_rows = world.f.memory.sessions().unwrap();
            let protected: Vec<SessionId> =
                before_rows.iter().filter(|r| !r.referenced_by.is_empty()).map(|r| r.session_id.clone()).collect();
            match world.apply(op) {
                None => prop_assert_eq!(&world.f.tree(), &before_tree, "a failed {:?} changed files", op),
                Some(touched) => {
                    let after_index = world.f.index_text();
                    for row in &before_rows {
                        if touched.contains(&row.session_id) {
                            continue;
                        }
                        prop_assert_eq!(
                            row_line(&after_index, row.session_id.as_str()).or_else(|| after_index.lines().find(|l| l.starts_with(&format!("|  {} |", row.session_id))).map(str::to_string)),
                            row_line(&before_index, row.session_id.as_str()).or_else(|| before_index.lines().find(|l| l.starts_with(&format!("|  {} |", row.session_id))).map(str::to_string)),
                            "{:?} changed untouched row {}", op, row.session_id
                        );
                    }
                    prop_assert!(after_index.starts_with("Intro prose.\n\n"));
                    prop_assert!(after_index.ends_with("\nOutro prose.\n"));
                }
            }
            for id in &protected {
                prop_assert!(world.f.memory.session(id.as_str()).is_ok(), "referenced row {} removed by {:?}", id, op);
            }
            world.check_invariants();
        }
    }
}
