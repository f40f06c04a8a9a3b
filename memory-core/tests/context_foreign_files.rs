//! Files a person keeps in a namespace directory beside the entries (`README.md`,
//! `NOTES.md`, `todo.md`, a picture) are *foreign*: not named
//! `{category}-{short_id}[-{slug}].md`, they are listed apart in `verify` and `heal`,
//! never read as entities, indexed, counted, rewritten or taken as a reason to heal. A
//! file that IS named like an entity but does not read stays unreadable (drift, by path
//! and line), as before.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use memory_core::context_memory::{
    Category, ContextMemory, Namespace, NewEntry, Query, is_entity_file_name, is_foreign_file_name,
};
use memory_core::durable::{LOCK_FILE_NAME, MemoryLock};
use proptest::prelude::*;

fn memory(root: &Path) -> ContextMemory {
    ContextMemory::builder(root)
        .fixed_time("2026-04-03T10:00:00Z")
        .unwrap()
        .open()
        .unwrap()
}

fn write(memory: &ContextMemory, body: &str) {
    memory
        .write(NewEntry::new("org.global", Category::Decision, ["alpha", "beta"], body).unwrap())
        .unwrap();
}

/// Every file under `root` with its bytes (lock and journal files left out).
fn tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if !path.file_name().unwrap().to_str().unwrap().starts_with('.') {
                out.insert(
                    path.strip_prefix(root).unwrap().to_path_buf(),
                    std::fs::read(&path).unwrap(),
                );
            }
        }
    }
    out
}

/// A valid entity's text, for a foreign file that looks like one inside.
const ENTITY_INSIDE: &str = "---\nentity_name: org.global.decision.009\nnamespace: org.global\ncategory: decision\nstatus: accepted\ntags: [alpha, beta]\ncreated_at: 2026-04-03T10:00:00Z\n---\n\nA README written like an entity.\n";

/// The foreign files of every shape the test puts in `org/global` (name, bytes).
fn foreign_files() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("README.md", b"# What this directory is\n".to_vec()),
        (
            "NOTES.md",
            b"\xef\xbb\xbf---\r\ntitle: notes\r\n---\r\n\r\n- one\r\n".to_vec(),
        ),
        ("todo.md", b"- [ ] tidy\n".to_vec()),
        ("decision.md", ENTITY_INSIDE.as_bytes().to_vec()),
        ("Decision-001-caps.md", ENTITY_INSIDE.as_bytes().to_vec()),
        ("decision-.md", b"".to_vec()),
        ("ノート.md", "認證の覚え書き\n".as_bytes().to_vec()),
        ("empty.md", Vec::new()),
        ("notes.txt", b"plain text\n".to_vec()),
        ("diagram.png", vec![0x89, b'P', b'N', b'G', 0, 0xff]),
        ("huge.md", "x".repeat(3 * 1024 * 1024).into_bytes()),
        ("broken.md", b"---\nentity_name: [\n---\n".to_vec()),
    ]
}

fn put_foreign(ns_dir: &Path) -> Vec<PathBuf> {
    let mut names = Vec::new();
    for (name, bytes) in foreign_files() {
        std::fs::write(ns_dir.join(name), bytes).unwrap();
        names.push(Path::new("org/global").join(name));
    }
    names.sort();
    names
}

#[test]
fn foreign_files_are_listed_apart_and_never_indexed_counted_or_touched() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    write(&m, "Auth uses JWT.");
    write(&m, "Sessions live in Redis.");
    let ns_dir = dir.path().join("org/global");
    let foreign = put_foreign(&ns_dir);
    // Not foreign: memory-core's own files, a subdirectory, hidden files.
    std::fs::write(ns_dir.join("_index.md.bak-20260101T000000Z"), "old\n").unwrap();
    std::fs::write(ns_dir.join(".hidden.md"), "x\n").unwrap();
    std::fs::create_dir(ns_dir.join("drafts")).unwrap();
    let before = tree(dir.path());

    let ns = Namespace::org_global();
    let drift = m.verify(&ns).unwrap();
    assert!(!drift.has_drift(), "{drift:?}");
    assert_eq!(drift.foreign, foreign);
    assert_eq!(
        (drift.rows, drift.files),
        (2, 2),
        "foreign files are not counted"
    );
    assert!(drift.unreadable.is_empty() && drift.unindexed_files.is_empty());

    let healed = m.heal(&ns).unwrap();
    assert!(!healed.written, "nothing to heal: {healed:?}");
    assert_eq!(healed.foreign, foreign);
    assert!(healed.added.is_empty() && healed.unreadable.is_empty());
    assert_eq!(tree(dir.path()), before, "verify and heal wrote nothing");

    // Readers take no lock and heal nothing: another process holds the lock.
    {
        let _held = MemoryLock::acquire(&dir.path().join(LOCK_FILE_NAME), Duration::ZERO).unwrap();
        let reader = m.with_lock_timeout(Duration::from_millis(200));
        let hits = reader.query(&Query::new().include_history(true)).unwrap();
        assert_eq!(
            hits.len(),
            2,
            "the README written like an entity is not one"
        );
        assert!(reader.get("org.global.decision.009").is_err());
        reader.get("org.global.decision.001").unwrap();
    }
    assert_eq!(tree(dir.path()), before, "no read wrote anything");

    // A write numbers past the entries only, and leaves every foreign file as it was.
    write(&m, "Queues are durable.");
    assert!(ns_dir.join("decision-003-queues-are-durable.md").is_file());
    let after = tree(dir.path());
    for path in &foreign {
        assert_eq!(after[path], before[path], "{path:?}");
    }
    let drift = m.verify(&ns).unwrap();
    assert!(!drift.has_drift());
    assert_eq!(
        (drift.rows, drift.files, drift.foreign.len()),
        (3, 3, foreign.len())
    );
}

#[test]
fn a_namespace_of_only_foreign_files_has_nothing_to_heal() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    let ns_dir = dir.path().join("org/global");
    std::fs::create_dir_all(&ns_dir).unwrap();
    let foreign = put_foreign(&ns_dir);
    let before = tree(dir.path());
    let ns = Namespace::org_global();
    let drift = m.verify(&ns).unwrap();
    assert!(!drift.has_drift(), "{drift:?}");
    assert_eq!((drift.rows, drift.files), (0, 0));
    let healed = m.heal(&ns).unwrap();
    assert!(!healed.written, "no entity, no index made: {healed:?}");
    assert_eq!(healed.foreign, foreign);
    assert!(m.query(&Query::new()).unwrap().is_empty());
    assert_eq!(tree(dir.path()), before);
}

/// Named like an entity, not reading: drift, reported by path and line, kept out, never
/// touched — foreign is only about the name.
#[test]
fn a_file_named_like_an_entity_that_does_not_read_stays_unreadable() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    write(&m, "Auth uses JWT.");
    let ns_dir = dir.path().join("org/global");
    std::fs::write(ns_dir.join("todo-list.md"), "# My list\n\n- [ ] tidy\n").unwrap();
    std::fs::write(
        ns_dir.join("risk-002-draft.md"),
        "---\r\nentity_name: org.global.risk.002\r\nstatus: [open\r\n---\r\n",
    )
    .unwrap();
    std::fs::write(ns_dir.join("README.md"), "# Readme\n").unwrap();
    let before = tree(dir.path());
    let ns = Namespace::org_global();
    let drift = m.verify(&ns).unwrap();
    assert!(drift.has_drift());
    let unreadable: Vec<(String, usize)> = drift
        .unreadable
        .iter()
        .map(|w| {
            (
                w.path.file_name().unwrap().to_string_lossy().into_owned(),
                w.line,
            )
        })
        .collect();
    assert_eq!(unreadable.len(), 2, "{unreadable:?}");
    assert_eq!(unreadable[0].0, "risk-002-draft.md");
    assert!(unreadable[0].1 >= 2, "{unreadable:?}");
    assert_eq!(unreadable[1].0, "todo-list.md");
    assert_eq!(drift.foreign, [Path::new("org/global/README.md")]);
    assert_eq!(drift.files, 3, "the entity and the two named like entities");
    let healed = m.heal(&ns).unwrap();
    assert_eq!(healed.unreadable.len(), 2);
    assert_eq!(healed.foreign, [Path::new("org/global/README.md")]);
    let after = tree(dir.path());
    for name in ["todo-list.md", "risk-002-draft.md", "README.md"] {
        let path = Path::new("org/global").join(name);
        assert_eq!(after[&path], before[&path], "{name} untouched");
    }
}

/// A hand-written row whose `File` is a foreign file points at no entity file: it is a
/// row without its file (drift), removed by heal; the foreign file stays as it is.
#[test]
fn a_row_naming_a_foreign_file_is_a_row_without_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    write(&m, "Auth uses JWT.");
    let ns_dir = dir.path().join("org/global");
    std::fs::write(ns_dir.join("README.md"), ENTITY_INSIDE).unwrap();
    let index_path = ns_dir.join("_index.md");
    let mut index = std::fs::read_to_string(&index_path).unwrap();
    index.push_str(
        "| org.global.decision.009 | decision | A README written like an entity. | alpha, beta | accepted | README.md |\n",
    );
    std::fs::write(&index_path, &index).unwrap();
    let ns = Namespace::org_global();
    let drift = m.verify(&ns).unwrap();
    let missing: Vec<&str> = drift.missing_files.iter().map(|n| n.as_str()).collect();
    assert_eq!(missing, ["org.global.decision.009"]);
    assert_eq!(drift.foreign, [Path::new("org/global/README.md")]);
    assert_eq!((drift.rows, drift.files), (2, 1));
    let healed = m.heal(&ns).unwrap();
    let removed: Vec<&str> = healed.removed.iter().map(|n| n.as_str()).collect();
    assert_eq!(removed, ["org.global.decision.009"]);
    assert_eq!(
        std::fs::read_to_string(ns_dir.join("README.md")).unwrap(),
        ENTITY_INSIDE
    );
    assert!(!m.verify(&ns).unwrap().has_drift());
}

/// Every name is exactly one of: an entity file, a foreign file, memory-core's own or
/// hidden.
fn own_or_hidden(name: &str) -> bool {
    name.starts_with('.')
        || name == "_index.md"
        || name == "_pending_refresh.md"
        || name.starts_with("_index.md.bak-")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever file names sit beside the entries, the entity/foreign split is a
    /// partition, `verify` lists exactly the foreign ones (sorted, relative to the root)
    /// and finds no drift in them, and `heal` writes nothing.
    #[test]
    fn foreign_names_are_listed_and_never_drift(
        names in prop::collection::btree_set(
            prop_oneof![
                "[a-zA-Z_.\u{30ce}\u{8a8d}-]{1,12}(\\.md|\\.txt|\\.MD|)",
                "(decision|risk|todo|diagram|note)-?[a-z0-9-]{0,6}\\.md",
                Just("README.md".to_string()),
                Just("_index.md.bak-1".to_string()),
            ],
            0..8,
        ),
    ) {
        for name in &names {
            let kinds = [is_entity_file_name(name), is_foreign_file_name(name), own_or_hidden(name)];
            prop_assert_eq!(kinds.iter().filter(|k| **k).count(), 1, "{:?}: {:?}", name, kinds);
        }
        let dir = tempfile::tempdir().unwrap();
        let m = memory(dir.path());
        write(&m, "Auth uses JWT.");
        let ns_dir = dir.path().join("org/global");
        let mut expected = Vec::new();
        for name in &names {
            // Entity-named files are not the subject here: they would be unreadable.
            if is_entity_file_name(name) || own_or_hidden(name) || name == "_index.md" {
                continue;
            }
            std::fs::write(ns_dir.join(name), ENTITY_INSIDE).unwrap();
            expected.push(Path::new("org/global").join(name));
        }
        expected.sort();
        let before = tree(dir.path());
        let ns = Namespace::org_global();
        let drift = m.verify(&ns).unwrap();
        prop_assert!(!drift.has_drift(), "{:?}", drift);
        prop_assert_eq!(&drift.foreign, &expected);
        prop_assert_eq!((drift.rows, drift.files), (1, 1));
        let healed = m.heal(&ns).unwrap();
        prop_assert!(!healed.written);
        prop_assert_eq!(&healed.foreign, &expected);
        prop_assert_eq!(m.query(&Query::new()).unwrap().len(), 1);
        prop_assert_eq!(tree(dir.path()), before);
    }
}
