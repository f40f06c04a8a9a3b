//! The body limits of `hygiene::check_body`: the hard size limit and the flags, at and
//! just past every documented threshold, in hand-written shapes (CRLF, BOM, tilde and
//! unclosed fences, CJK).

use memory_core::ErrorKind;
use memory_core::hygiene::{
    BodyFlag, FLAG_CODE_LINES, FLAG_LINE_CHARS, FLAG_SENTENCES, MAX_BODY_BYTES, check_body,
};

#[test]
fn a_body_at_the_hard_limit_is_accepted_and_one_byte_more_is_refused() {
    let at_limit = "a".repeat(MAX_BODY_BYTES);
    assert_eq!(check_body("body", &at_limit).unwrap().bytes, MAX_BODY_BYTES);
    let over = "a".repeat(MAX_BODY_BYTES + 1);
    let err = check_body("body", &over).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(err.field(), Some("body"));
    assert_eq!(err.path(), None);
    assert_eq!(
        err.to_string(),
        "body: 16385 bytes is over the limit of 16384 bytes (16 KiB); keep the conclusion here and point to the document"
    );
}

#[test]
fn the_limit_counts_bytes_not_characters() {
    // 5462 CJK characters of 3 bytes are 16386 bytes.
    let cjk = "决".repeat(5462);
    let err = check_body("summary", &cjk).unwrap_err();
    assert!(err.to_string().starts_with("summary: 16386 bytes"), "{err}");
    assert!(check_body("summary", &"决".repeat(5461)).is_ok());
}

#[test]
fn empty_and_short_bodies_are_clean() {
    for body in [
        "",
        "\n",
        "\u{feff}",
        "Use Postgres.",
        "Use Postgres.\r\nIt has row locks.\r\n",
    ] {
        let flags = check_body("body", body).unwrap();
        assert!(flags.is_clean(), "{body:?}: {:?}", flags.flags);
    }
    assert_eq!(check_body("body", "").unwrap().sentences, 0);
}

#[test]
fn more_than_three_sentences_are_flagged_in_any_script() {
    let three = "One. Two! Three?";
    assert_eq!(check_body("body", three).unwrap().sentences, FLAG_SENTENCES);
    assert!(check_body("body", three).unwrap().is_clean());
    for four in [
        "One. Two! Three? Four.",
        "一。二！三？四。",
        "One.\r\nTwo.\r\n\r\nThree.\r\nFour",
        "\u{feff}Yes. Sure. Maybe. No.",
    ] {
        let flags = check_body("body", four).unwrap();
        assert_eq!(
            flags.flags,
            vec![BodyFlag::ManySentences { sentences: 4 }],
            "{four:?}"
        );
    }
    let flag = BodyFlag::ManySentences { sentences: 4 };
    assert_eq!(
        flag.to_string(),
        "4 sentences (the body should be 3 at most: the conclusion, not the reasoning)"
    );
}

#[test]
fn sentences_inside_code_blocks_are_not_counted() {
    let body = "Chose the retry loop.\n```\na.b(); c.d(); e.f(); g.h();\n```\n";
    assert_eq!(check_body("body", body).unwrap().sentences, 1);
}

#[test]
fn long_lines_are_flagged_by_characters() {
    let at = "a".repeat(FLAG_LINE_CHARS);
    assert!(check_body("body", &at).unwrap().is_clean());
    // 400 CJK characters are 1200 bytes but not a long line.
    assert!(
        check_body("body", &"决".repeat(FLAG_LINE_CHARS))
            .unwrap()
            .is_clean()
    );
    let body = format!("Short.\r\n{}\r\n{}\n", "b".repeat(450), "c".repeat(401));
    let flags = check_body("body", &body).unwrap();
    assert_eq!(
        flags.flags,
        vec![BodyFlag::LongLine {
            line: 2,
            chars: 450
        }]
    );
    assert_eq!(flags.flags[0].code(), "long-line");
}

fn fenced(open: &str, lines: usize, close: Option<&str>, eol: &str) -> String {
    let mut body = format!("Tried this:{eol}{open}{eol}");
    for i in 0..lines {
        body.push_str(&format!("let x{i} = {i};{eol}"));
    }
    if let Some(close) = close {
        body.push_str(close);
        body.push_str(eol);
    }
    body
}

#[test]
fn fenced_code_over_the_limit_is_flagged_as_a_dump() {
    assert!(
        check_body(
            "body",
            &fenced("```rust", FLAG_CODE_LINES, Some("```"), "\n")
        )
        .unwrap()
        .is_clean()
    );
    let cases = [
        (
            fenced("```rust", FLAG_CODE_LINES + 1, Some("```"), "\n"),
            11,
        ),
        (fenced("~~~", 20, Some("~~~"), "\r\n"), 20),
        (fenced("````", 12, Some("````"), "\n"), 12),
        // Not closed: every line to the end is code.
        (fenced("```", 15, None, "\n"), 15),
    ];
    for (body, lines) in cases {
        let flags = check_body("body", &body).unwrap();
        assert_eq!(
            flags.flags,
            vec![BodyFlag::CodeDump { line: 2, lines }],
            "{body:?}"
        );
    }
    assert_eq!(
        BodyFlag::CodeDump { line: 2, lines: 11 }.to_string(),
        "the code block at line 2 has 11 lines (more than 10; large code belongs in git)"
    );
}

#[test]
fn every_flag_is_reported_in_order() {
    let body = format!(
        "One. Two. Three. Four. Five.\n{}\n```\n{}```\n\n```\n{}```\n",
        "x".repeat(500),
        "code\n".repeat(11),
        "more\n".repeat(30)
    );
    let flags = check_body("body", &body).unwrap();
    assert_eq!(
        flags.flags,
        vec![
            // The run of x is a sixth piece of prose.
            BodyFlag::ManySentences { sentences: 6 },
            BodyFlag::LongLine {
                line: 2,
                chars: 500
            },
            BodyFlag::CodeDump { line: 3, lines: 11 },
            BodyFlag::CodeDump {
                line: 17,
                lines: 30
            },
        ]
    );
    let codes: Vec<&str> = flags.flags.iter().map(BodyFlag::code).collect();
    assert_eq!(
        codes,
        ["many-sentences", "long-line", "code-dump", "code-dump"]
    );
}
