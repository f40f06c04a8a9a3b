//! Counts in printed lines: `1 line`, `2 lines`, never `1 lines` or `line(s)`.

/// `n` and the noun: `one` when `n` is 1, else `many`.
pub fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// [`count`] for a noun whose plural takes an `s` (`line`, `byte`).
pub fn counted(n: usize, noun: &str) -> String {
    count(n, noun, &format!("{noun}s"))
}
