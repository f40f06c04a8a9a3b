//! A new topic whose frontmatter should give its hook (`description:`) but does not read
//! as YAML or JSON: the refusal names the file and the line, and nothing is written. A
//! valid JSON or YAML flow mapping gives its description.

use memory_core::ErrorKind;
use memory_core::structured_memory::{Fact, StructuredMemory};

#[test]
fn a_broken_frontmatter_is_refused_naming_its_file_and_line() {
    for (text, line) in [
        // An unclosed quote, list or mapping in the description itself.
        (
            "---\nname: Infra\ndescription: \"hosts, db\n---\n\n- 2026-01-01: a\n",
            3,
        ),
        (
            "---\nname: Infra\ndescription: [hosts, db\n---\n\n- 2026-01-01: a\n",
            3,
        ),
        (
            "---\nname: Infra\ndescription: {hosts: db\n---\n\n- 2026-01-01: a\n",
            3,
        ),
        (
            "---\ntype: x\nname: Infra\ndescription: 'hosts, db\n---\n",
            4,
        ),
        // A mapping or list where one line of text is expected.
        (
            "---\nname: Infra\ndescription: {a: 1}\n---\n\n- 2026-01-01: a\n",
            3,
        ),
        ("---\nname: Infra\ndescription: [a, b]\n---\n", 3),
        // A JSON object never closed: the block reads as Markdown, and says where.
        (
            "---\n{\"name\": \"Infra\", \"description\": \"x\n---\n\n- 2026-01-01: a\n",
            3,
        ),
        // YAML broken elsewhere, no description line found.
        (
            "---\nname: x\n  bad: [\ntype: y\n---\n\n- 2026-01-01: a\n",
            3,
        ),
        // CRLF and a byte-order mark change nothing.
        (
            "\u{feff}---\r\nname: Infra\r\ndescription: \"hosts\r\n---\r\n",
            3,
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("memory-infra.md"), text).unwrap();
        let memory = StructuredMemory::open(dir.path()).unwrap();
        let err = memory
            .remember(Fact::new("memory-infra.md", "Postgres 16"))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{text:?}: {err}");
        assert!(
            err.to_string()
                .contains(&format!("memory-infra.md:{line}:")),
            "{text:?}: {err}"
        );
        assert!(err.to_string().contains("hook"), "{err}");
        assert!(!dir.path().join("MEMORY.md").exists(), "{text:?}: written");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("memory-infra.md")).unwrap(),
            text
        );
        // The same file takes the write with a hook given.
        memory
            .remember(Fact::new("memory-infra.md", "Postgres 16").hook("hosts, db"))
            .unwrap();
    }
}

#[test]
fn json_and_flow_mapping_frontmatter_give_the_hook_and_title() {
    for text in [
        "---\n{\"name\": \"Infra\", \"description\": \"hosts, db\"}\n---\n\n- 2026-01-01: a\n",
        "---\n{name: Infra, description: \"hosts, db\"}\n---\n",
        "---\nname: Infra\ndescription: hosts, db\n---\n",
        // Claude Code's lenient lines still read: `key: rest of the line`.
        "---\nname: Infra\ndescription: hosts, db: both\n---\n",
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("memory-infra.md"), text).unwrap();
        let memory = StructuredMemory::open(dir.path()).unwrap();
        memory
            .remember(Fact::new("memory-infra.md", "Postgres 16"))
            .unwrap();
        let line = &memory.index().unwrap().lines[0];
        assert_eq!(line.title, "Infra", "{text:?}");
        assert!(
            line.hook.starts_with("hosts, db"),
            "{text:?}: {}",
            line.hook
        );
    }
}
