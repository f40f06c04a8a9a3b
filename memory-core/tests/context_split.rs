//! The seed's "Namespace Scaling": past ~50 entries a namespace is split by domain; every
//! entity is kept, renamed to its new namespace, and no `supersedes` or
//! `related_entities` link anywhere in the root dangles.

use memory_core::ErrorKind;
use memory_core::context_memory::{
    Category, ContextMemory, EntityName, Namespace, NewEntry, Query, SplitPlan,
};

fn memory(root: &std::path::Path) -> ContextMemory {
    ContextMemory::builder(root)
        .fixed_time("2026-04-03T10:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

#[test]
fn a_crowded_namespace_splits_by_tag_and_no_link_dangles() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    let mut last = None;
    for i in 0..55 {
        let (tags, what) = match i % 3 {
            0 => (["api", "backend"], "endpoint"),
            1 => (["frontend", "ui"], "screen"),
            _ => (["ops", "runbook"], "alert"),
        };
        let out = m
            .write(
                NewEntry::new(
                    "project.shop",
                    Category::Decision,
                    tags,
                    format!("Rule {i} for the {what}."),
                )
                .unwrap()
                .force_new(true),
            )
            .unwrap();
        last = Some(out.entry.entity_name.clone());
        if i == 54 {
            assert!(
                out.over_threshold,
                "the write says the namespace is past 50"
            );
        }
    }
    // A cross-cutting entry (no shared tag), one that links into the namespace from
    // elsewhere, and one inside linking to a sibling.
    m.write(
        NewEntry::new(
            "project.shop",
            Category::Principle,
            ["style", "naming"],
            "Name things plainly.",
        )
        .unwrap(),
    )
    .unwrap();
    let target = EntityName::parse("project.shop.decision.001").unwrap();
    m.write(
        NewEntry::new(
            "org.global",
            Category::Principle,
            ["reuse", "links"],
            "See the shop API rule.",
        )
        .unwrap()
        .related(target.clone()),
    )
    .unwrap();
    let last = last.unwrap();
    m.supersede(
        last.as_str(),
        NewEntry::new(
            "project.shop",
            Category::Decision,
            ["ops", "runbook"],
            "Rule 54 revised for the alert.",
        )
        .unwrap(),
    )
    .unwrap();

    let ns = Namespace::parse("project.shop").unwrap();
    let before = m
        .query(
            &Query::new()
                .namespace("project.shop")
                .unwrap()
                .include_history(true)
                .limit(usize::MAX),
        )
        .unwrap()
        .len();
    let report = m.split(&ns, &SplitPlan::by_tag()).unwrap();
    assert!(report.domains.len() >= 3, "{:?}", report.domains);
    assert_eq!(report.kept.len(), 1, "the cross-cutting principle stays");
    let after = m
        .query(
            &Query::new()
                .namespace("project.shop")
                .unwrap()
                .include_history(true)
                .limit(usize::MAX),
        )
        .unwrap();
    assert_eq!(after.len(), before, "every entity is kept");
    // Every link in the root names an entry that exists.
    for info in m.namespaces().unwrap() {
        assert!(
            !m.verify(&info.namespace).unwrap().has_drift(),
            "{}",
            info.namespace
        );
    }
    let org = m
        .query(&Query::new().namespace("org.global").unwrap())
        .unwrap();
    let linker = m.get(org[0].entity_name.as_str()).unwrap();
    let new_target = &report.moved[&target];
    assert_eq!(linker.related_entities, vec![new_target.clone()]);
    assert!(m.get(new_target.as_str()).is_ok());
    for hit in &after {
        let entry = m.get(hit.entity_name.as_str()).unwrap();
        for link in entry.supersedes.iter().chain(&entry.related_entities) {
            assert!(
                m.get(link.as_str()).is_ok(),
                "{} links to missing {link}",
                entry.entity_name
            );
        }
    }
    // The old name says where it went.
    let err = m.get(target.as_str()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert!(err.to_string().contains(new_target.as_str()), "{err}");
    // A new entry in the parent never takes a moved entry's old name.
    let fresh = m
        .write(
            NewEntry::new(
                "project.shop",
                Category::Decision,
                ["api", "backend"],
                "Rule for the new endpoint.",
            )
            .unwrap()
            .force_new(true),
        )
        .unwrap()
        .entry
        .entity_name;
    assert!(
        report.moved.keys().all(|old| old != &fresh),
        "{fresh} was a moved entry's name"
    );
    let err = m.get(target.as_str()).unwrap_err();
    assert!(err.to_string().contains(new_target.as_str()), "{err}");
}

#[test]
fn an_explicit_plan_moves_named_entries_and_a_parent_left_empty_loses_its_index() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    for body in ["Use REST.", "Use Postgres."] {
        m.write(NewEntry::new("project.app", Category::Decision, ["a", "b"], body).unwrap())
            .unwrap();
    }
    let ns = Namespace::parse("project.app").unwrap();
    let plan = SplitPlan::mapping([
        ("project.app.decision.001", "api"),
        ("project.app.decision.002", "db"),
    ])
    .unwrap();
    let report = m.split(&ns, &plan).unwrap();
    assert!(report.removed_parent_index);
    assert!(!dir.path().join("projects/app/_index.md").exists());
    assert!(dir.path().join("projects/app/api/_index.md").exists());
    assert_eq!(
        m.get("project.app.db.decision.002")
            .unwrap()
            .namespace
            .as_str(),
        "project.app.db"
    );
}

#[test]
fn only_project_namespaces_split_and_a_plan_must_move_something() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    m.write(NewEntry::new("org.global", Category::Decision, ["a", "b"], "x.").unwrap())
        .unwrap();
    assert_eq!(
        m.split(&Namespace::org_global(), &SplitPlan::by_tag())
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidInput
    );
    m.write(NewEntry::new("project.solo", Category::Decision, ["a", "b"], "x.").unwrap())
        .unwrap();
    let solo = Namespace::parse("project.solo").unwrap();
    assert_eq!(
        m.split(&solo, &SplitPlan::by_tag()).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
}

#[test]
fn entries_already_in_a_target_domain_are_relinked_too() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    let write = |ns: &str, tags: [&str; 2], body: &str, related: Option<&EntityName>| {
        // The domain's own entry is a constraint: its short id does not collide with the
        // moved decisions' (a collision is refused, EntityExists).
        let category = if ns == "project.app" {
            Category::Decision
        } else {
            Category::Constraint
        };
        let mut new = NewEntry::new(ns, category, tags, body).unwrap();
        if let Some(target) = related {
            new = new.related(target.clone());
        }
        m.write(new).unwrap().entry.entity_name
    };
    let rest = write("project.app", ["api", "rest"], "REST over gRPC.", None);
    write("project.app", ["api", "auth"], "Tokens are JWTs.", None);
    write("project.app", ["ui", "css"], "CSS grid for layout.", None);
    // project.app.api exists before the split and links to an entry the split moves there.
    let linker = write(
        "project.app.api",
        ["api", "errors"],
        "Errors are problem details.",
        Some(&rest),
    );
    let report = m
        .split(
            &Namespace::parse("project.app").unwrap(),
            &SplitPlan::by_tag(),
        )
        .unwrap();
    let moved = report.moved[&rest].clone();
    assert_eq!(moved.namespace().as_str(), "project.app.api");
    assert_eq!(report.relinked, vec![linker.clone()], "{report:?}");
    let entry = m.get(linker.as_str()).unwrap();
    assert_eq!(entry.related_entities, vec![moved.clone()]);
    assert!(m.get(moved.as_str()).is_ok());
    let ns = Namespace::parse("project.app.api").unwrap();
    assert!(!m.verify(&ns).unwrap().has_drift());
}

/// An entry written straight into a domain never takes a number its project namespace
/// still holds, so a later split moves that entry into the domain under its own number;
/// again and again, every old name says where it went and none names another entry.
#[test]
fn splitting_again_after_writes_into_the_domain_keeps_every_number_distinct() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    let parent = Namespace::parse("project.app").unwrap();
    let write = |ns: &str, tags: [&str; 2], body: String| {
        m.write(
            NewEntry::new(ns, Category::Decision, tags, body)
                .unwrap()
                .force_new(true),
        )
        .unwrap()
        .entry
        .entity_name
    };
    let mut moved: Vec<(EntityName, String)> = Vec::new();
    for round in 0..3 {
        let first = write(
            "project.app",
            ["auth", "x"],
            format!("Round {round} token rule one."),
        );
        let second = write(
            "project.app",
            ["auth", "y"],
            format!("Round {round} cookie rule two."),
        );
        let stays = write(
            "project.app",
            ["misc", "z"],
            format!("Round {round} naming rule three."),
        );
        let direct = write(
            "project.app.auth",
            ["auth", "direct"],
            format!("Round {round} written into the domain itself."),
        );
        assert_ne!(direct.short_id(), stays.short_id(), "round {round}");
        let plan =
            SplitPlan::mapping([(first.as_str(), "auth"), (second.as_str(), "auth")]).unwrap();
        let report = m.split(&parent, &plan).unwrap();
        for old in [&first, &second] {
            let new = &report.moved[old];
            assert_eq!(new.short_id(), old.short_id(), "round {round}");
            moved.push((
                old.clone(),
                format!("{}: {}", new, m.get(new.as_str()).unwrap().body),
            ));
        }
        assert!(m.get(stays.as_str()).is_ok());
        assert!(m.get(direct.as_str()).is_ok());
    }
    for (old, was) in &moved {
        let err = m.get(old.as_str()).unwrap_err();
        let new_name = was.split(':').next().unwrap();
        assert!(
            err.to_string().contains(&format!("moved to {new_name}")),
            "{err}"
        );
        let body = m.get(new_name).unwrap().body;
        assert!(was.ends_with(&body), "{old} → {new_name}: {was} / {body}");
    }
    for report in m.verify_all().unwrap() {
        assert!(!report.has_drift(), "{report:?}");
    }
}
