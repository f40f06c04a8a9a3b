//! A new topic among topic files that keep frontmatter (Claude Code's auto-memory)
//! starts with one too — `name`, `description` and, when given, `type` — that reads back
//! as the title and hook of its index line; among plain topics it starts with `# Title`;
//! an existing topic's frontmatter is never rewritten.

mod structured_support;

use std::path::Path;

use memory_core::ErrorKind;
use memory_core::structured_memory::{Fact, StructuredMemory};
use proptest::prelude::*;
use structured_support::tree;

fn memory(dir: &Path) -> StructuredMemory {
    structured_support::memory_at(dir, None)
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap()
}

/// A directory as Claude Code writes it: every topic with `name`, `description`, `type`.
fn claude_code_dir(dir: &Path, ending: &str) {
    let index = "- [User](user_role.md) — who the user is\n- [Testing](feedback_testing.md) — how tests run\n";
    std::fs::write(dir.join("MEMORY.md"), index.replace('\n', ending)).unwrap();
    for (file, name, kind) in [
        ("user_role.md", "User role", "user"),
        ("feedback_testing.md", "Testing", "feedback"),
    ] {
        let text = format!(
            "---\nname: {name}\ndescription: about {name}\ntype: {kind}\n---\n\n- 2026-07-01: a fact\n"
        );
        std::fs::write(dir.join(file), text.replace('\n', ending)).unwrap();
    }
}

#[test]
fn a_new_topic_among_frontmatter_topics_gets_name_and_description() {
    let dir = tempfile::tempdir().unwrap();
    claude_code_dir(dir.path(), "\n");
    let m = memory(dir.path());
    let out = m
        .remember(
            Fact::new(
                "project_deploy.md",
                "deploys go through the staging cluster",
            )
            .subject("deploy path")
            .title("Deploys")
            .hook("how releases reach production"),
        )
        .unwrap();
    assert!(out.created_topic && out.linked);
    let text = read(dir.path(), "project_deploy.md");
    insta::assert_snapshot!("new_topic_with_frontmatter", text);
    let topic = m.topic("project_deploy.md").unwrap();
    let meta = topic.meta.unwrap();
    assert_eq!(meta.name.as_deref(), Some("Deploys"));
    assert_eq!(
        meta.description.as_deref(),
        Some("how releases reach production")
    );
    assert_eq!(meta.kind, None);
    assert_eq!(topic.entries.len(), 1);
    // The index line says the same; the directory checks clean.
    let line = m.index().unwrap().lines.pop().unwrap();
    assert_eq!(
        (line.title.as_str(), line.hook.as_str()),
        ("Deploys", "how releases reach production")
    );
    assert_eq!(m.check().unwrap(), vec![]);
    // Later writes keep the block byte for byte.
    m.remember(Fact::new("project_deploy.md", "deploys need two approvals").subject("approvals"))
        .unwrap();
    assert!(read(dir.path(), "project_deploy.md").starts_with(&text[..text.find("\n\n").unwrap()]));
}

#[test]
fn a_new_topic_among_plain_topics_starts_with_its_title() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("MEMORY.md"),
        "- [Infra](memory-infra.md) — hosts\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("memory-infra.md"),
        "# Infra\n\n- 2026-07-01: web1 runs nginx\n",
    )
    .unwrap();
    let m = memory(dir.path());
    m.remember(Fact::new("memory-build.md", "cargo needs --locked").hook("build quirks"))
        .unwrap();
    assert_eq!(
        read(dir.path(), "memory-build.md"),
        "# Build\n\n- 2026-07-10: cargo needs --locked\n"
    );
}

#[test]
fn the_style_is_what_most_of_the_first_linked_topics_keep() {
    let dir = tempfile::tempdir().unwrap();
    // Three linked files read (a missing fourth line says nothing): one of three with
    // frontmatter is not most of them.
    std::fs::write(
        dir.path().join("MEMORY.md"),
        "- [Gone](gone.md) — missing\n- [A](a.md) — a\n- [B](b.md) — b\n- [C](c.md) — c\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("a.md"),
        "---\nname: A\ndescription: a\n---\n- 2026-07-01: x\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("b.md"), "# B\n\n- 2026-07-01: y\n").unwrap();
    std::fs::write(dir.path().join("c.md"), "# C\n\n- 2026-07-01: z\n").unwrap();
    let m = memory(dir.path());
    m.remember(Fact::new("d.md", "a fact").hook("d things"))
        .unwrap();
    assert!(read(dir.path(), "d.md").starts_with("# D\n"));
    // Two of three: the next one keeps frontmatter.
    std::fs::write(
        dir.path().join("b.md"),
        "---\ndescription: b\n---\n- 2026-07-01: y\n",
    )
    .unwrap();
    m.remember(Fact::new("e.md", "a fact").hook("e things"))
        .unwrap();
    assert!(read(dir.path(), "e.md").starts_with("---\nname: E\ndescription: e things\n---\n"));
}

#[test]
fn a_type_given_writes_the_block_in_any_directory_and_in_its_line_ending() {
    let dir = tempfile::tempdir().unwrap();
    let m = memory(dir.path());
    m.remember(
        Fact::new("feedback_tests.md", "no mocks where the real thing runs")
            .hook("how tests are written")
            .section("Style")
            .kind("feedback"),
    )
    .unwrap();
    assert_eq!(
        read(dir.path(), "feedback_tests.md"),
        "---\nname: Feedback tests\ndescription: how tests are written\ntype: feedback\n---\n\n## Style\n\n- 2026-07-10: no mocks where the real thing runs\n"
    );

    let crlf = tempfile::tempdir().unwrap();
    claude_code_dir(crlf.path(), "\r\n");
    memory(crlf.path())
        .remember(
            Fact::new("reference_links.md", "dashboards at grafana.internal")
                .hook("where to look")
                .kind("reference"),
        )
        .unwrap();
    let text = read(crlf.path(), "reference_links.md");
    assert_eq!(
        text,
        "---\r\nname: Reference links\r\ndescription: where to look\r\ntype: reference\r\n---\r\n\r\n- 2026-07-10: dashboards at grafana.internal\r\n"
    );
}

#[test]
fn an_existing_topics_frontmatter_is_never_rewritten_for_a_type() {
    let dir = tempfile::tempdir().unwrap();
    claude_code_dir(dir.path(), "\n");
    let m = memory(dir.path());
    let before = tree(dir.path());
    let err = m
        .remember(Fact::new("user_role.md", "prefers terse answers").kind("feedback"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("its type is user"), "{err}");
    assert_eq!(tree(dir.path()), before);
    // The type it has is no change: the write goes ahead.
    m.remember(Fact::new("user_role.md", "prefers terse answers").kind("user"))
        .unwrap();
    // A type that is not one word is refused before anything is read.
    for bad in ["two words", "", "a:b", "x\ny"] {
        let err = m
            .remember(Fact::new("new.md", "a fact").hook("h").kind(bad))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{bad:?}");
    }
    assert!(!dir.path().join("new.md").exists());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever title and hook a write accepts, the new file's frontmatter reads back as
    /// exactly them (YAML's special words, quotes, colons, `#`, brackets, Markdown
    /// openers), and the index line agrees.
    #[test]
    fn any_accepted_title_and_hook_read_back_from_the_frontmatter(
        title in r#"[A-Za-z0-9 :#'"\[\]{}!&*%|>@`,?<\-]{1,30}"#,
        hook in prop_oneof![
            r#"[A-Za-z0-9 :#'"\[\]{}!&*%|>@`,?<\-]{1,40}"#,
            Just("yes".to_string()), Just("null".to_string()), Just("0.5".to_string()),
            Just("---".to_string()), Just("<!-- not a comment".to_string()), Just("%% x".to_string()),
        ],
    ) {
        let dir = tempfile::tempdir().unwrap();
        claude_code_dir(dir.path(), "\n");
        let m = memory(dir.path());
        let before = tree(dir.path());
        match m.remember(Fact::new("project_x.md", "a fact").title(title.clone()).hook(hook.clone())) {
            Err(_) => prop_assert_eq!(tree(dir.path()), before),
            Ok(_) => {
                let topic = m.topic("project_x.md").unwrap();
                let line = m.index().unwrap().lines.into_iter().find(|l| l.file == "project_x.md").unwrap();
                let meta = topic.meta.unwrap();
                prop_assert_eq!(meta.name.as_deref(), Some(line.title.as_str()));
                prop_assert_eq!(meta.description.as_deref(), Some(line.hook.as_str()));
                prop_assert_eq!(topic.entries.len(), 1);
            }
        }
    }
}

/// A split of a topic that keeps frontmatter writes each part with its own — `name` the
/// part's title, `description` its hook, the topic's `type` — in the topic's line ending,
/// and a later split of the same section goes into that part.
#[test]
fn a_split_part_of_a_frontmatter_topic_keeps_frontmatter() {
    use memory_core::structured_memory::DefaultCompactor;
    for ending in ["\n", "\r\n"] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(
            d.join("MEMORY.md"),
            "- [Ops](project_ops.md) — hosts and network\n".replace('\n', ending),
        )
        .unwrap();
        let topic = "---\nname: Ops\ndescription: hosts and network\ntype: project\n---\n\n## Hosts\n- 2026-06-01: web1\n- 2026-06-02: web2\n\n## Network\n- 2026-06-03: vpn on wg0\n- 2026-06-04: dns at 10.0.0.2\n";
        std::fs::write(d.join("project_ops.md"), topic.replace('\n', ending)).unwrap();
        let m = structured_support::memory_at(d, Some(11));
        let report = m.compact(None, &DefaultCompactor, false).unwrap();
        assert_eq!(report.created, ["project_ops-network.md"], "{ending:?}");
        let part = read(d, "project_ops-network.md");
        assert_eq!(
            part,
            "---\nname: \"Ops: Network\"\ndescription: Network\ntype: project\n---\n\n## Network\n- 2026-06-03: vpn on wg0\n- 2026-06-04: dns at 10.0.0.2\n"
                .replace('\n', ending),
            "{ending:?}"
        );
        let line = m.index().unwrap().lines.pop().unwrap();
        let meta = m.topic("project_ops-network.md").unwrap().meta.unwrap();
        assert_eq!(meta.name.as_deref(), Some(line.title.as_str()));
        assert_eq!(meta.description.as_deref(), Some(line.hook.as_str()));
        assert!(m.check().unwrap().is_empty(), "{:?}", m.check().unwrap());
        // The section grows again: its entries go into the part, not a `-2` file.
        let again = format!(
            "{}- 2026-06-05: ntp at 10.0.0.3\n- 2026-06-06: mtu 1400\n",
            read(d, "project_ops.md").replace(ending, "\n")
        )
        .replace(
            "## Hosts\n- 2026-06-01: web1\n- 2026-06-02: web2\n",
            "## Hosts\n- 2026-06-01: web1\n- 2026-06-02: web2\n\n## Network\n",
        );
        std::fs::write(d.join("project_ops.md"), again.replace('\n', ending)).unwrap();
        let report = m.compact(None, &DefaultCompactor, false).unwrap();
        assert!(
            report.created.is_empty(),
            "{ending:?}: {:?}",
            report.created
        );
        assert_eq!(m.topic("project_ops-network.md").unwrap().entries.len(), 4);
    }
}
