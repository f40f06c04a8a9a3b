//! Size budgets: 60 lines for `MEMORY.md` and 150 per topic file by default (the seed's
//! table), optionally bytes too, so that a user can match the limit their agent loads.
//! Every write reports what each file it touched uses and has left; no read truncates.

use serde::Serialize;

use crate::plural::counted;

/// The seed's budget for `MEMORY.md`.
pub const INDEX_LINE_BUDGET: usize = 60;
/// The seed's budget for a topic file.
pub const TOPIC_LINE_BUDGET: usize = 150;
/// A file is near its budget from this share of it (90 %).
pub const NEAR_BUDGET_PERCENT: usize = 90;

/// The budgets a memory directory is held to.
///
/// ```
/// use memory_core::structured_memory::Budgets;
/// let budgets = Budgets::default().topic_bytes(Some(8 * 1024));
/// assert_eq!((budgets.index_lines, budgets.topic_lines), (60, 150));
/// assert_eq!(budgets.topic_bytes, Some(8192));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Budgets {
    /// Lines `MEMORY.md` may hold.
    pub index_lines: usize,
    /// Lines a topic file may hold.
    pub topic_lines: usize,
    /// Bytes `MEMORY.md` may hold, when limited.
    pub index_bytes: Option<usize>,
    /// Bytes a topic file may hold, when limited.
    pub topic_bytes: Option<usize>,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            index_lines: INDEX_LINE_BUDGET,
            topic_lines: TOPIC_LINE_BUDGET,
            index_bytes: None,
            topic_bytes: None,
        }
    }
}

impl Budgets {
    /// With `lines` for `MEMORY.md`.
    pub fn index_lines(mut self, lines: usize) -> Self {
        self.index_lines = lines;
        self
    }
    /// With `lines` per topic file.
    pub fn topic_lines(mut self, lines: usize) -> Self {
        self.topic_lines = lines;
        self
    }
    /// With a byte limit for `MEMORY.md` (`None`: lines only).
    pub fn index_bytes(mut self, bytes: Option<usize>) -> Self {
        self.index_bytes = bytes;
        self
    }
    /// With a byte limit per topic file (`None`: lines only).
    pub fn topic_bytes(mut self, bytes: Option<usize>) -> Self {
        self.topic_bytes = bytes;
        self
    }

    /// Refuses a budget of zero (`InvalidInput` naming it): no file can hold a line in
    /// zero lines or bytes, so that every write would be over budget and every
    /// compaction would need judgment. [`StructuredMemoryBuilder::open`] checks it.
    ///
    /// [`StructuredMemoryBuilder::open`]: super::StructuredMemoryBuilder::open
    ///
    /// ```
    /// use memory_core::{ErrorKind, structured_memory::Budgets};
    /// assert!(Budgets::default().validate().is_ok());
    /// let err = Budgets::default().topic_bytes(Some(0)).validate().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::InvalidInput);
    /// ```
    pub fn validate(&self) -> crate::Result<()> {
        for (what, value) in [
            ("index_lines", Some(self.index_lines)),
            ("topic_lines", Some(self.topic_lines)),
            ("index_bytes", self.index_bytes),
            ("topic_bytes", self.topic_bytes),
        ] {
            if value == Some(0) {
                return Err(crate::Error::invalid(
                    what,
                    "0",
                    "a budget must be at least 1 (no file fits in 0; leave a byte budget out for none)",
                ));
            }
        }
        Ok(())
    }

    /// What `file` of `lines` lines and `bytes` bytes uses of its budget (the index's
    /// when `is_index`, else a topic file's).
    ///
    /// ```
    /// use memory_core::structured_memory::{BudgetState, Budgets};
    /// let used = Budgets::default().usage("memory-infra.md", false, 140, 4000);
    /// assert_eq!((used.lines_left, used.state), (10, BudgetState::Near));
    /// let over = Budgets::default().usage("MEMORY.md", true, 61, 3000);
    /// assert_eq!((over.over_by_lines, over.state), (1, BudgetState::Over));
    /// ```
    pub fn usage(&self, file: &str, is_index: bool, lines: usize, bytes: usize) -> BudgetUse {
        let (line_budget, byte_budget) = if is_index {
            (self.index_lines, self.index_bytes)
        } else {
            (self.topic_lines, self.topic_bytes)
        };
        let over = lines > line_budget || byte_budget.is_some_and(|b| bytes > b);
        let near = |used: usize, budget: usize| used * 100 >= budget * NEAR_BUDGET_PERCENT;
        let state = if over {
            BudgetState::Over
        } else if near(lines, line_budget) || byte_budget.is_some_and(|b| near(bytes, b)) {
            BudgetState::Near
        } else {
            BudgetState::Within
        };
        BudgetUse {
            file: file.to_string(),
            lines,
            line_budget,
            lines_left: line_budget.saturating_sub(lines),
            over_by_lines: lines.saturating_sub(line_budget),
            bytes,
            byte_budget,
            over_by_bytes: byte_budget.map_or(0, |b| bytes.saturating_sub(b)),
            state,
        }
    }
}

/// Where a file stands against its budget.
///
/// ```
/// use memory_core::structured_memory::BudgetState;
/// assert_eq!(BudgetState::Near.as_str(), "near");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum BudgetState {
    /// Comfortably within.
    Within,
    /// Within, but at 90 % or more of a limit.
    Near,
    /// Past a limit.
    Over,
}

impl BudgetState {
    /// A stable snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            BudgetState::Within => "within",
            BudgetState::Near => "near",
            BudgetState::Over => "over",
        }
    }
}

/// What one file uses of its budget.
///
/// ```
/// use memory_core::structured_memory::Budgets;
/// let used = Budgets::default().usage("USER.md", false, 12, 900);
/// assert_eq!(used.lines_left, 138);
/// assert!(used.warning().is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct BudgetUse {
    /// The file, relative to the memory directory.
    pub file: String,
    /// Lines it holds.
    pub lines: usize,
    /// Lines it may hold.
    pub line_budget: usize,
    /// Lines left before the budget (0 when at or over it).
    pub lines_left: usize,
    /// Lines past the budget (0 when within it).
    pub over_by_lines: usize,
    /// Bytes it holds.
    pub bytes: usize,
    /// Bytes it may hold, when limited.
    pub byte_budget: Option<usize>,
    /// Bytes past the byte budget (0 when within it or unlimited).
    pub over_by_bytes: usize,
    /// Where it stands.
    pub state: BudgetState,
}

impl BudgetUse {
    /// A sentence for a file near or over its budget; `None` within it.
    ///
    /// ```
    /// use memory_core::structured_memory::Budgets;
    /// let over = Budgets::default().usage("MEMORY.md", true, 64, 3000);
    /// assert_eq!(over.warning().unwrap(), "MEMORY.md is over its budget: 64 of 60 lines (4 over)");
    /// ```
    pub fn warning(&self) -> Option<String> {
        let bytes = match self.byte_budget {
            Some(b) => format!(", {} of {}", self.bytes, counted(b, "byte")),
            None => String::new(),
        };
        match self.state {
            BudgetState::Within => None,
            BudgetState::Near => Some(self.near_warning()),
            BudgetState::Over => {
                let mut over = Vec::new();
                if self.over_by_lines > 0 {
                    over.push(format!("{} over", self.over_by_lines));
                }
                if self.over_by_bytes > 0 {
                    over.push(format!("{} over", counted(self.over_by_bytes, "byte")));
                }
                Some(format!(
                    "{} is over its budget: {} of {}{bytes} ({})",
                    self.file,
                    self.lines,
                    counted(self.line_budget, "line"),
                    over.join(", ")
                ))
            }
        }
    }
}

impl BudgetUse {
    /// The 1-based line of `text` (the file this use was counted from) at which its
    /// budget is first exceeded: the first line past the line budget, or the first line
    /// whose end (its terminator included) passes the byte budget, whichever comes first;
    /// `None` within the budget.
    ///
    /// ```
    /// use memory_core::structured_memory::Budgets;
    /// let text = "- 2026-07-10: a fact, 36 bytes long\n".repeat(6);
    /// // Within 150 lines, over 100 bytes: the third line ends at byte 108.
    /// let used = Budgets::default().topic_bytes(Some(100)).usage("t.md", false, 6, text.len());
    /// assert_eq!(used.first_line_over(&text), Some(3));
    /// let used = Budgets::default().topic_lines(4).usage("t.md", false, 6, text.len());
    /// assert_eq!(used.first_line_over(&text), Some(5));
    /// assert_eq!(Budgets::default().usage("t.md", false, 6, text.len()).first_line_over(&text), None);
    /// ```
    pub fn first_line_over(&self, text: &str) -> Option<usize> {
        let by_lines = (self.over_by_lines > 0).then_some(self.line_budget + 1);
        let by_bytes = match self.byte_budget {
            Some(budget) if self.over_by_bytes > 0 => {
                let mut end = 0;
                text.split_inclusive('\n')
                    .position(|line| {
                        end += line.len();
                        end > budget
                    })
                    .map(|i| i + 1)
            }
            _ => None,
        };
        match (by_lines, by_bytes) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The near-budget sentence, worded by what is near: the lines, the bytes, or both.
    fn near_warning(&self) -> String {
        let near = |used: usize, budget: usize| used * 100 >= budget * NEAR_BUDGET_PERCENT;
        let lines_near = near(self.lines, self.line_budget);
        let mut lines = format!("{} of {}", self.lines, counted(self.line_budget, "line"));
        if lines_near {
            lines.push_str(&format!(" ({} left)", self.lines_left));
        }
        let (bytes_near, bytes) = match self.byte_budget {
            Some(b) => {
                let bytes_near = near(self.bytes, b);
                let left = if bytes_near {
                    format!(" ({} left)", counted(b.saturating_sub(self.bytes), "byte"))
                } else {
                    String::new()
                };
                (
                    bytes_near,
                    format!("{} of {}{left}", self.bytes, counted(b, "byte")),
                )
            }
            None => (false, String::new()),
        };
        match (lines_near, bytes.is_empty()) {
            (_, true) => format!("{} is near its budget: {lines}", self.file),
            (true, false) if bytes_near => format!(
                "{} is near its line and byte budgets: {lines}, {bytes}",
                self.file
            ),
            (true, false) => format!("{} is near its budget: {lines}, {bytes}", self.file),
            (false, false) => format!("{} is near its byte budget: {bytes}; {lines}", self.file),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(
        lines: usize,
        bytes: usize,
        line_budget: usize,
        byte_budget: Option<usize>,
    ) -> BudgetUse {
        Budgets::default()
            .topic_lines(line_budget)
            .topic_bytes(byte_budget)
            .usage("t.md", false, lines, bytes)
    }

    #[test]
    fn the_first_line_over_is_where_the_budget_is_first_passed() {
        // 11 lines of 19 bytes (LF), 209 bytes: byte 170 is passed on line 9.
        let text = "- 2026-07-10: fact\n".repeat(11);
        assert_eq!(text.len(), 209);
        let over = usage(11, text.len(), 150, Some(170));
        assert_eq!(over.first_line_over(&text), Some(9));
        // A line ending exactly at the budget does not pass it.
        assert_eq!(
            usage(11, 209, 150, Some(171)).first_line_over(&text),
            Some(10)
        );
        assert_eq!(
            usage(11, 209, 150, Some(152)).first_line_over(&text),
            Some(9)
        );
        assert_eq!(
            usage(11, 209, 150, Some(151)).first_line_over(&text),
            Some(8)
        );
        // CRLF terminators count; the last line without one too.
        let crlf = "ab\r\ncd\r\nef";
        assert_eq!(usage(3, 10, 150, Some(8)).first_line_over(crlf), Some(3));
        assert_eq!(usage(3, 10, 150, Some(7)).first_line_over(crlf), Some(2));
        // Lines and bytes both over: the earlier.
        assert_eq!(
            usage(11, 209, 10, Some(170)).first_line_over(&text),
            Some(9)
        );
        assert_eq!(usage(11, 209, 5, Some(170)).first_line_over(&text), Some(6));
        assert_eq!(usage(11, 209, 5, None).first_line_over(&text), Some(6));
        assert_eq!(usage(11, 209, 150, Some(209)).first_line_over(&text), None);
        // Unicode: bytes, not characters.
        let wide = "ünïcödé\n".repeat(3);
        assert_eq!(
            usage(3, wide.len(), 150, Some(13)).first_line_over(&wide),
            Some(2)
        );
    }

    #[test]
    fn the_near_warning_names_what_is_near() {
        let lines = usage(140, 900, 150, Some(4000)).warning().unwrap();
        assert_eq!(
            lines,
            "t.md is near its budget: 140 of 150 lines (10 left), 900 of 4000 bytes"
        );
        let bytes = usage(11, 160, 150, Some(170)).warning().unwrap();
        assert_eq!(
            bytes,
            "t.md is near its byte budget: 160 of 170 bytes (10 bytes left); 11 of 150 lines"
        );
        let both = usage(145, 160, 150, Some(170)).warning().unwrap();
        assert_eq!(
            both,
            "t.md is near its line and byte budgets: 145 of 150 lines (5 left), 160 of 170 bytes (10 bytes left)"
        );
        let no_bytes = usage(140, 900, 150, None).warning().unwrap();
        assert_eq!(
            no_bytes,
            "t.md is near its budget: 140 of 150 lines (10 left)"
        );
        assert!(usage(10, 100, 150, Some(170)).warning().is_none());
    }
}
