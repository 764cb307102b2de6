//! The rule catalogue as data: every rule of RULES.md, its strength and direction, the
//! profiles that apply it, the verdict vocabulary and the coverage registry.

mod catalogue;
mod direction;
mod id;
mod rule;
mod section;
mod strength;

pub use catalogue::{Catalogue, catalogue};
pub use direction::Direction;
pub use id::{RuleId, UnknownRule};
pub use rule::Rule;
pub use section::Section;
pub use strength::{ExtensionKind, Level, Strength, StrengthPart};
