//! Counts in messages: `1 line`, `2 lines`, never `1 lines`.

/// `n` and the noun: `one` when `n` is 1, else `many` (`count(1, "entry", "entries")`
/// is `1 entry`, `count(0, "byte", "bytes")` is `0 bytes`).
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// [`count`] for nouns whose plural takes an `s` (`line`, `byte`, `file`).
pub(crate) fn counted(n: usize, noun: &str) -> String {
    count(n, noun, &format!("{noun}s"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(counted(1, "line"), "1 line");
        assert_eq!(count(1, "entry", "entries"), "1 entry");
        for n in [0, 2, 3, 11, 21, 101, 1_000] {
            assert_eq!(counted(n, "byte"), format!("{n} bytes"));
            assert_eq!(count(n, "entry", "entries"), format!("{n} entries"));
        }
    }
}
