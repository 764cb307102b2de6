//! The rule catalogue as data: every rule of RULES.md, its strength and direction, the
//! profiles that apply it, the verdict vocabulary and the coverage registry.

mod ambiguity;
mod catalogue;
mod coverage;
mod direction;
mod id;
mod outcome;
mod profile;
mod rule;
mod section;
mod strength;
mod verdict;

#[cfg(test)]
pub(crate) mod literal_ids;

pub use ambiguity::{Ambiguity, Basis, Reading, ambiguities, ambiguity};
pub use catalogue::{Catalogue, catalogue};
pub use coverage::{Coverage, RuleCoverage, Status};
pub use direction::Direction;
pub use id::{RuleId, UnknownRule, catalogued};
pub use outcome::{Outcome, Severity};
pub use profile::{Claims, Profile, Timeouts};
pub use rule::{ENGINE_ADVISORY, Rule};
pub use section::Section;
pub use strength::{ExtensionKind, Level, Strength, StrengthPart};
pub use verdict::Verdict;
