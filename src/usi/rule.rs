//! The rule IDs this module reports, named after their catalogue entries in `RULES.md`.
//!
//! Every diagnostic names its rule through one of these constants, so [`ALL`] is the complete
//! list. They are catalogue [`RuleId`]s (`rules` is the crate's shared vocabulary), so an ID
//! that is not in the catalogue fails the build.

use crate::rules::RuleId;

pub const HANDSHAKE_002: RuleId = crate::rule!("USI-HANDSHAKE-002");
pub const HANDSHAKE_004: RuleId = crate::rule!("USI-HANDSHAKE-004");
pub const OPTION_001: RuleId = crate::rule!("USI-OPTION-001");
pub const OPTION_002: RuleId = crate::rule!("USI-OPTION-002");
pub const OPTION_003: RuleId = crate::rule!("USI-OPTION-003");
pub const OPTION_004: RuleId = crate::rule!("USI-OPTION-004");
pub const OPTION_005: RuleId = crate::rule!("USI-OPTION-005");
pub const OPTION_006: RuleId = crate::rule!("USI-OPTION-006");
pub const OPTION_013: RuleId = crate::rule!("USI-OPTION-013");
pub const POSITION_006: RuleId = crate::rule!("USI-POSITION-006");
pub const PONDER_001: RuleId = crate::rule!("USI-PONDER-001");
pub const BESTMOVE_001: RuleId = crate::rule!("USI-BESTMOVE-001");
pub const BESTMOVE_005: RuleId = crate::rule!("USI-BESTMOVE-005");
pub const BESTMOVE_007: RuleId = crate::rule!("USI-BESTMOVE-007");
pub const INFO_002: RuleId = crate::rule!("USI-INFO-002");
pub const INFO_003: RuleId = crate::rule!("USI-INFO-003");
pub const INFO_004: RuleId = crate::rule!("USI-INFO-004");
pub const INFO_005: RuleId = crate::rule!("USI-INFO-005");
pub const INFO_006: RuleId = crate::rule!("USI-INFO-006");
pub const INFO_007: RuleId = crate::rule!("USI-INFO-007");
pub const INFO_009: RuleId = crate::rule!("USI-INFO-009");
pub const INFO_010: RuleId = crate::rule!("USI-INFO-010");
pub const INFO_011: RuleId = crate::rule!("USI-INFO-011");
pub const INFO_012: RuleId = crate::rule!("USI-INFO-012");
pub const INFO_013: RuleId = crate::rule!("USI-INFO-013");
pub const MATE_010: RuleId = crate::rule!("USI-MATE-010");
pub const ROBUST_005: RuleId = crate::rule!("USI-ROBUST-005");
pub const ROBUST_010: RuleId = crate::rule!("USI-ROBUST-010");
pub const ENCODING_001: RuleId = crate::rule!("USI-ENCODING-001");
pub const ENCODING_003: RuleId = crate::rule!("USI-ENCODING-003");
pub const EXT_007: RuleId = crate::rule!("USI-EXT-007");
pub const EXT_017: RuleId = crate::rule!("USI-EXT-017");

/// Every rule ID above.
pub const ALL: &[RuleId] = &[
    HANDSHAKE_002,
    HANDSHAKE_004,
    OPTION_001,
    OPTION_002,
    OPTION_003,
    OPTION_004,
    OPTION_005,
    OPTION_006,
    OPTION_013,
    POSITION_006,
    PONDER_001,
    BESTMOVE_001,
    BESTMOVE_005,
    BESTMOVE_007,
    INFO_002,
    INFO_003,
    INFO_004,
    INFO_005,
    INFO_006,
    INFO_007,
    INFO_009,
    INFO_010,
    INFO_011,
    INFO_012,
    INFO_013,
    MATE_010,
    ROBUST_005,
    ROBUST_010,
    ENCODING_001,
    ENCODING_003,
    EXT_007,
    EXT_017,
];
