//! The seed's closed sets: entity categories and statuses.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::error::{Error, Result};

/// Declares a closed set of lowercase names with `as_str`, `ALL`, `Display` and a
/// `FromStr` that names the allowed values on refusal.
macro_rules! closed_set {
    ($(#[$meta:meta])* $name:ident, $what:literal, { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        #[serde(rename_all = "lowercase")]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value, in the seed's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The lowercase name as files and indexes write it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The allowed names, comma-separated (for messages).
            pub(crate) fn allowed() -> String {
                Self::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", ")
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = Error;
            /// Exact lowercase names only: the seed's sets are closed, and a file that
            /// says `Accepted` is reported rather than guessed at.
            fn from_str(s: &str) -> Result<Self> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|v| v.as_str() == s)
                    .ok_or_else(|| {
                        Error::invalid($what, s, format!("must be one of {}", Self::allowed()))
                    })
            }
        }
    };
}

closed_set!(
    /// What kind of knowledge an entity holds.
    ///
    /// ```
    /// use memory_core::context_memory::Category;
    /// assert_eq!("decision".parse::<Category>().unwrap(), Category::Decision);
    /// assert!("note".parse::<Category>().is_err());
    /// assert_eq!(Category::ALL.len(), 8);
    /// ```
    Category, "category", {
        /// A decision taken.
        Decision => "decision",
        /// A constraint that holds.
        Constraint => "constraint",
        /// An assumption made.
        Assumption => "assumption",
        /// An option considered and rejected.
        Rejected => "rejected",
        /// Work still to do.
        Todo => "todo",
        /// A known risk.
        Risk => "risk",
        /// A guiding principle.
        Principle => "principle",
        /// A diagram (Mermaid code in `diagram_code`).
        Diagram => "diagram",
    }
);

closed_set!(
    /// Where an entity stands.
    ///
    /// ```
    /// use memory_core::context_memory::EntryStatus;
    /// assert_eq!("experimental".parse::<EntryStatus>().unwrap(), EntryStatus::Experimental);
    /// assert!(EntryStatus::Superseded.is_history());
    /// assert!(!EntryStatus::Accepted.is_history());
    /// ```
    EntryStatus, "status", {
        /// Agreed and in force.
        Accepted => "accepted",
        /// Being tried.
        Experimental => "experimental",
        /// No longer to be followed.
        Deprecated => "deprecated",
        /// Replaced by a newer entry (`supersedes` on the new one).
        Superseded => "superseded",
    }
);

impl EntryStatus {
    /// Whether queries leave the entry out unless history is asked for (the seed: "Ignore
    /// deprecated and superseded unless reviewing history").
    pub fn is_history(self) -> bool {
        matches!(self, EntryStatus::Deprecated | EntryStatus::Superseded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sets_are_the_seeds() {
        let categories: Vec<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            categories,
            [
                "decision",
                "constraint",
                "assumption",
                "rejected",
                "todo",
                "risk",
                "principle",
                "diagram"
            ]
        );
        let statuses: Vec<&str> = EntryStatus::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            statuses,
            ["accepted", "experimental", "deprecated", "superseded"]
        );
        for c in Category::ALL {
            assert_eq!(c.as_str().parse::<Category>().unwrap(), *c);
        }
        let err = "Decision".parse::<Category>().unwrap_err();
        assert!(
            err.to_string()
                .contains("must be one of decision, constraint"),
            "{err}"
        );
    }
}
