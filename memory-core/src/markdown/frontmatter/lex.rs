//! The YAML token rules the key scanner needs, applied to one line at a time: where a
//! quoted scalar or a flow collection closes, where a trailing comment starts, whether a
//! token is a key, and block scalar headers. Positions are byte offsets in the whole text.

/// A construct a line leaves open for the next lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Open {
    /// Nothing: the next line starts a new token.
    None,
    /// A plain scalar that continues on the next lines indented more than `parent`.
    Plain { parent: usize },
    /// A quoted scalar; `depth` is the flow collection depth to return to (0: none).
    Quoted { double: bool, depth: u32 },
    /// A flow collection `depth` levels deep.
    Flow { depth: u32 },
    /// A block scalar header followed by something other than indicators and a comment.
    BadHeader,
    /// A block scalar whose content lines are indented by `indent` (found on its first
    /// non-empty line when not given), more than `parent`; `keep` is the `+` chomping.
    Block {
        parent: usize,
        indent: Option<usize>,
        keep: bool,
    },
}

/// What the tokens of one line (or of its rest) came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Scanned {
    /// Just past a quoted scalar or flow collection that closed on this line, when the
    /// line's value is one (text after it is then an error on a key's line).
    pub closed_at: Option<usize>,
    /// Just past the last byte that is not white space or a comment (the position
    /// scanned from when there is none).
    pub content_end: usize,
    /// What stays open for the next line.
    pub open: Open,
}

/// The value style of the first token of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lead {
    /// `"…"`
    Double,
    /// `'…'`
    Single,
    /// `[…]`
    FlowSeq,
    /// `{…}`
    FlowMap,
    /// `|` or `>` with the header's explicit indentation indicator.
    Block {
        folded: bool,
        indicator: Option<usize>,
    },
    /// `*alias`
    Alias,
    /// A plain scalar.
    Plain,
}

/// Space or tab.
pub(super) fn ws(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// Whether `b[i]` is white space or the end of the line `end`.
fn ws_or_end(b: &[u8], i: usize, end: usize) -> bool {
    i >= end || ws(b[i])
}

/// The first position from `i` that is not a space or tab (at most `end`).
pub(super) fn skip_ws(b: &[u8], mut i: usize, end: usize) -> usize {
    while i < end && ws(b[i]) {
        i += 1;
    }
    i
}

/// Whether `c` is a YAML indicator that no plain scalar (nor a plain key) starts with:
/// flow collections, comments, anchors, aliases, tags, block scalars, directives and
/// the reserved `@` and `` ` ``. (`-`, `?` and `:` are indicators only before white
/// space; quotes start quoted scalars.)
pub(super) fn starts_no_plain_scalar(c: u8) -> bool {
    matches!(
        c,
        b',' | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'%'
            | b'@'
            | b'`'
    )
}

/// `end` moved back over spaces and tabs, not before `start`.
pub(super) fn trim_back(b: &[u8], start: usize, mut end: usize) -> usize {
    while end > start && ws(b[end - 1]) {
        end -= 1;
    }
    end
}

/// Whether a `-`, `?` or `:` at `i` is an indicator (followed by white space or the end).
pub(super) fn indicator_at(b: &[u8], i: usize, end: usize, c: u8) -> bool {
    i < end && b[i] == c && ws_or_end(b, i + 1, end)
}

/// Just past the quote closing the scalar whose body starts at `i`, if it closes on
/// this line. `\` escapes one byte in a double-quoted scalar, `''` is a quote in a
/// single-quoted one.
pub(super) fn close_quote(b: &[u8], mut i: usize, end: usize, double: bool) -> Option<usize> {
    let quote = if double { b'"' } else { b'\'' };
    while i < end {
        let c = b[i];
        if double && c == b'\\' {
            i += 2;
            continue;
        }
        if c == quote {
            if !double && i + 1 < end && b[i + 1] == b'\'' {
                i += 2;
                continue;
            }
            return Some(i + 1);
        }
        i += 1;
    }
    None
}

/// Where the plain scalar (or the rest of a line) starting at `i` ends: before a ` #`
/// comment or the end of the line, trailing white space excluded.
pub(super) fn plain_end(b: &[u8], i: usize, end: usize) -> usize {
    let mut j = i;
    while j < end {
        if b[j] == b'#' && (j == i || ws(b[j - 1])) {
            break;
        }
        j += 1;
    }
    trim_back(b, i, j)
}

/// Scans a flow collection `depth` levels deep from `i` (a line start or just past a
/// `[`/`{`), with `token_start` telling whether a quote at `i` would open a scalar.
pub(super) fn scan_flow(
    b: &[u8],
    mut i: usize,
    end: usize,
    mut depth: u32,
    token_start: bool,
) -> Scanned {
    let mut content_end = i;
    let mut at_token = token_start;
    while i < end {
        let c = b[i];
        if ws(c) {
            i += 1;
            continue;
        }
        if comment_at(b, i) {
            return Scanned {
                closed_at: None,
                content_end,
                open: Open::Flow { depth },
            };
        }
        match c {
            b'"' | b'\'' if at_token => match close_quote(b, i + 1, end, c == b'"') {
                Some(q) => {
                    i = q;
                    content_end = q;
                    at_token = false;
                    continue;
                }
                None => {
                    return Scanned {
                        closed_at: None,
                        content_end: trim_back(b, i, end),
                        open: Open::Quoted {
                            double: c == b'"',
                            depth,
                        },
                    };
                }
            },
            b'[' | b'{' => {
                depth += 1;
                at_token = true;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                at_token = false;
                if depth == 0 {
                    return after_node(b, i + 1, end);
                }
            }
            b',' => at_token = true,
            // `:` separates only before white space or a flow indicator (`a:b` is text).
            b':' => {
                at_token = b
                    .get(i + 1)
                    .is_none_or(|&n| i + 1 >= end || ws(n) || b",[]{}".contains(&n));
            }
            _ => at_token = false,
        }
        i += 1;
        content_end = i;
    }
    Scanned {
        closed_at: None,
        content_end,
        open: Open::Flow { depth },
    }
}

/// The rest of a line after a closed quoted scalar or flow collection: white space and
/// a comment, or (for a nested `"key": value` or `[key]: value`) a value.
pub(super) fn after_node(b: &[u8], i: usize, end: usize) -> Scanned {
    let j = skip_ws(b, i, end);
    if indicator_at(b, j, end, b':') {
        let v = skip_ws(b, j + 1, end);
        if v >= end || comment_at(b, v) {
            return Scanned {
                closed_at: None,
                content_end: j + 1,
                open: Open::None,
            };
        }
        // The parent of a block scalar here is unknowable without the key's column;
        // callers handle keys before values, so this is a flow or quoted key nested
        // deeper, whose block scalar content is indented past the line anyway.
        return scan_value(b, v, end, 0).1;
    }
    let content_end = plain_end(b, i, end).max(i);
    Scanned {
        closed_at: Some(i),
        content_end: if content_end > i { content_end } else { i },
        open: Open::None,
    }
}

/// Skips node properties (`&anchor`, `!tag`) at `i`; returns the next token's position.
pub(super) fn skip_properties(b: &[u8], mut i: usize, end: usize) -> usize {
    while i < end && (b[i] == b'&' || b[i] == b'!') {
        while i < end && !ws(b[i]) {
            i += 1;
        }
        i = skip_ws(b, i, end);
    }
    i
}

/// Whether the anchors among `props` (properties as [`skip_properties`] skipped them)
/// have names libyaml accepts: letters, digits, `-` and `_`.
pub(super) fn properties_ok(props: &[u8]) -> bool {
    props
        .split(|&c| ws(c))
        .filter(|p| p.first() == Some(&b'&'))
        .all(|p| {
            p.len() > 1
                && p[1..]
                    .iter()
                    .all(|&c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
        })
}

/// Scans a value starting at token position `i` (after a key's `: `, a `- `, or at a
/// line's first token) whose block parent is at column `parent`: the lead token kind
/// (after properties; `None` when only properties or nothing precede the line's end or
/// comment) and what the line came to.
pub(super) fn scan_value(b: &[u8], i: usize, end: usize, parent: usize) -> (Option<Lead>, Scanned) {
    let start = i;
    let i = skip_properties(b, i, end);
    let props_end = trim_back(b, start, i);
    if i >= end || comment_at(b, i) {
        return (
            None,
            Scanned {
                closed_at: None,
                content_end: props_end.max(start),
                open: Open::None,
            },
        );
    }
    match b[i] {
        q @ (b'"' | b'\'') => {
            let double = q == b'"';
            let lead = Some(if double { Lead::Double } else { Lead::Single });
            match close_quote(b, i + 1, end, double) {
                Some(close) => (lead, after_node(b, close, end)),
                None => (
                    lead,
                    Scanned {
                        closed_at: None,
                        content_end: trim_back(b, i, end),
                        open: Open::Quoted { double, depth: 0 },
                    },
                ),
            }
        }
        c @ (b'[' | b'{') => {
            let lead = Some(if c == b'[' {
                Lead::FlowSeq
            } else {
                Lead::FlowMap
            });
            (lead, scan_flow(b, i + 1, end, 1, true))
        }
        c @ (b'|' | b'>') => {
            let mut j = i + 1;
            let mut indicator = None;
            let mut keep = false;
            let mut chomp = false;
            let mut bad = false;
            while j < end && !ws(b[j]) {
                match b[j] {
                    d @ b'1'..=b'9' if indicator.is_none() => {
                        indicator = Some(usize::from(d - b'0'));
                    }
                    b'+' | b'-' if !chomp => {
                        chomp = true;
                        keep = b[j] == b'+';
                    }
                    _ => bad = true,
                }
                j += 1;
            }
            let k = skip_ws(b, j, end);
            if bad || k < end && !comment_at(b, k) {
                return (
                    Some(Lead::Plain),
                    Scanned {
                        closed_at: None,
                        content_end: j,
                        open: Open::BadHeader,
                    },
                );
            }
            let open = Open::Block {
                parent,
                indent: indicator.map(|m| parent + m),
                keep,
            };
            let lead = Lead::Block {
                folded: c == b'>',
                indicator,
            };
            (
                Some(lead),
                Scanned {
                    closed_at: None,
                    content_end: j,
                    open,
                },
            )
        }
        b'*' => {
            let mut j = i;
            while j < end && !ws(b[j]) {
                j += 1;
            }
            (
                Some(Lead::Alias),
                Scanned {
                    closed_at: None,
                    content_end: j,
                    open: Open::None,
                },
            )
        }
        _ => (
            Some(Lead::Plain),
            Scanned {
                closed_at: None,
                content_end: plain_end(b, i, end).max(i + 1),
                open: Open::Plain { parent },
            },
        ),
    }
}

/// If a key starts at `i` (a plain key that is not an indicator, or a quoted key, on
/// one line, followed by `:` and white space or the end of the line): the key's end
/// and the position just past its `:`.
pub(super) fn key_at(b: &[u8], i: usize, end: usize) -> Option<(usize, usize)> {
    let c = *b.get(i)?;
    if c == b'"' || c == b'\'' {
        let close = close_quote(b, i + 1, end, c == b'"')?;
        let j = skip_ws(b, close, end);
        return indicator_at(b, j, end, b':').then_some((close, j + 1));
    }
    let indicator_start =
        starts_no_plain_scalar(c) || (matches!(c, b'-' | b'?' | b':') && ws_or_end(b, i + 1, end));
    if indicator_start {
        return None;
    }
    let mut j = i;
    while j < end {
        match b[j] {
            b':' if ws_or_end(b, j + 1, end) => return Some((trim_back(b, i, j), j + 1)),
            b'#' if j > i && ws(b[j - 1]) => return None,
            _ => j += 1,
        }
    }
    None
}

/// The columns of the keys and `-` indicators on the lines above, innermost last: the
/// owner of a node that starts a line is the last one left of it. Held inline (nesting
/// deeper than its capacity only loses precision for block scalar headers that start a
/// line that deep).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Owners {
    cols: [usize; 16],
    len: usize,
}

impl Owners {
    /// Forgets the owners at or right of `col` and returns the one left of it.
    fn owner_of(&mut self, col: usize) -> usize {
        while self.len > 0 && self.cols[self.len - 1] >= col {
            self.len -= 1;
        }
        if self.len == 0 {
            0
        } else {
            self.cols[self.len - 1]
        }
    }

    fn push(&mut self, col: usize) {
        if self.len < self.cols.len() {
            self.cols[self.len] = col;
            self.len += 1;
        }
    }

    /// Starts over for a new top-level entry (whose key is at column 0).
    pub(super) fn reset(&mut self) {
        self.len = 0;
        self.push(0);
    }
}

/// Scans a line's nodes from its first token at `i`: compact `- `/`? `/`: `
/// indicators, then an optional key and its value, or a value, and tells what the line
/// came to. A block scalar's parent column is that of the innermost `-` or key on the
/// line, or the owner above for a node that starts the line.
pub(super) fn scan_nodes(
    b: &[u8],
    mut i: usize,
    end: usize,
    line_start: usize,
    owners: &mut Owners,
) -> Scanned {
    let mut parent = owners.owner_of(i - line_start);
    let mut keyed = false;
    loop {
        i = skip_ws(b, i, end);
        if i >= end || comment_at(b, i) {
            return Scanned {
                closed_at: None,
                content_end: trim_back(b, line_start, i),
                open: Open::None,
            };
        }
        let col = i - line_start;
        if !keyed && (indicator_at(b, i, end, b'-') || indicator_at(b, i, end, b'?')) {
            parent = col;
            owners.push(col);
            i += 1;
            continue;
        }
        if indicator_at(b, i, end, b':') {
            keyed = true;
            i += 1;
            continue;
        }
        if !keyed && let Some((_, colon)) = key_at(b, i, end) {
            owners.push(col);
            let v = skip_ws(b, colon, end);
            if v >= end || comment_at(b, v) {
                return Scanned {
                    closed_at: None,
                    content_end: colon,
                    open: Open::None,
                };
            }
            return scan_value(b, v, end, col).1;
        }
        return scan_value(b, i, end, parent).1;
    }
}

/// Whether a `#` at `i` starts a comment: first on its line or after white space.
pub(super) fn comment_at(b: &[u8], i: usize) -> bool {
    b[i] == b'#' && (i == 0 || ws(b[i - 1]) || b[i - 1] == b'\n')
}
