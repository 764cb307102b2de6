//! The JSON Schema of the scenario format, generated from the Rust types.

use super::Scenario;

/// The schema as pretty JSON with a trailing newline (the content of `scenarios/schema.json`).
pub fn schema_json() -> String {
    let schema = schemars::schema_for!(Scenario);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn checked_in_schema_is_up_to_date() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios/schema.json");
        let generated = schema_json();
        if std::env::var_os("USICHECK_BLESS").is_some() {
            std::fs::write(&path, &generated).unwrap();
            return;
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == generated,
            "scenarios/schema.json is out of date; run `usicheck scenario-schema > scenarios/schema.json` \
             (or USICHECK_BLESS=1 cargo test schema)"
        );
    }
}
