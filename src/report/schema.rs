//! The JSON Schemas of the report.json files, generated from the types that write them
//! ([`CertifyReport`], [`FuzzReportJson`], [`PlayReportJson`]): their doc comments are the
//! descriptions. docs/*.schema.json hold the output (a test keeps them in step), and
//! `usicheck report-schema COMMAND` prints it.

use super::fuzz::{FUZZ_SCHEMA, FuzzReportJson};
use super::games::{PLAY_SCHEMA, PlayReportJson};
use super::json::{CertifyReport, SCHEMA};
use schemars::Schema;
use schemars::generate::SchemaSettings;
use schemars::transform::transform_subschemas;
use serde_json::Value;

/// A command's report.json, each kind with its own schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportKind {
    /// `certify`, `run` and `selftest`.
    Certify,
    /// `fuzz`.
    Fuzz,
    /// `play`.
    Play,
}

impl ReportKind {
    pub const ALL: [ReportKind; 3] = [ReportKind::Certify, ReportKind::Fuzz, ReportKind::Play];

    /// The `schema` field of its reports, which is its schema's `$id`.
    pub fn id(self) -> &'static str {
        match self {
            ReportKind::Certify => SCHEMA,
            ReportKind::Fuzz => FUZZ_SCHEMA,
            ReportKind::Play => PLAY_SCHEMA,
        }
    }

    /// Where the repository keeps its schema, from the repository's root.
    pub fn docs_path(self) -> &'static str {
        match self {
            ReportKind::Certify => "docs/report.schema.json",
            ReportKind::Fuzz => "docs/fuzz-report.schema.json",
            ReportKind::Play => "docs/play-report.schema.json",
        }
    }

    /// The JSON Schema (draft 2020-12) of what its report.json holds, pretty-printed: every
    /// field usicheck writes is required, and no other is allowed.
    ///
    /// ```
    /// use usicheck::report::ReportKind;
    /// let schema: serde_json::Value =
    ///     serde_json::from_str(&ReportKind::Fuzz.schema_json()).unwrap();
    /// assert_eq!(schema["$id"], "usicheck-fuzz/1");
    /// assert_eq!(schema["properties"]["schema"]["const"], "usicheck-fuzz/1");
    /// ```
    pub fn schema_json(self) -> String {
        let generator = SchemaSettings::draft2020_12()
            .for_serialize()
            .with_transform(tidy)
            .into_generator();
        let mut schema = match self {
            ReportKind::Certify => generator.into_root_schema_for::<CertifyReport>(),
            ReportKind::Fuzz => generator.into_root_schema_for::<FuzzReportJson>(),
            ReportKind::Play => generator.into_root_schema_for::<PlayReportJson>(),
        };
        schema.insert("$id".to_owned(), self.id().into());
        let mut text = serde_json::to_string_pretty(&schema).expect("a schema serialises");
        text.push('\n');
        text
    }
}

/// Where `report` breaks the schema of `kind`: one line per error, with its place.
#[cfg(test)]
pub(super) fn schema_errors(kind: ReportKind, report: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(&kind.schema_json()).expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the schema is valid");
    validator
        .iter_errors(report)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// Closes every object to the properties it lists (a field usicheck does not write is an
/// error, not a silent extra), and joins the lines the doc comment of each description wrapped.
fn tidy(schema: &mut Schema) {
    if let Some(object) = schema.as_object_mut() {
        if object.contains_key("properties") {
            object
                .entry("additionalProperties")
                .or_insert(Value::Bool(false));
        }
        if let Some(Value::String(description)) = object.get_mut("description") {
            *description = unwrapped(description);
        }
    }
    transform_subschemas(&mut tidy, schema);
}

/// `text` with each line break inside a paragraph or list item as a space.
fn unwrapped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let line = line.trim();
        let joins = !out.is_empty() && !out.ends_with('\n') && !line.is_empty();
        if joins && !line.starts_with("- ") {
            out.push(' ');
        } else if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;
    use std::path::Path;

    /// docs/*.schema.json are what the report types generate; `USICHECK_BLESS=1` rewrites them.
    #[test]
    fn docs_report_schemas_are_the_generated_ones() {
        for kind in ReportKind::ALL {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(kind.docs_path());
            let generated = kind.schema_json();
            if std::env::var_os("USICHECK_BLESS").is_some() {
                std::fs::write(&path, &generated).unwrap();
                continue;
            }
            let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
            let command = kind.to_possible_value().expect("every kind is a value");
            assert!(
                on_disk == generated,
                "{path} is out of date; run `usicheck report-schema {command} > {path}` (or \
                 USICHECK_BLESS=1 cargo test schema)",
                path = kind.docs_path(),
                command = command.get_name(),
            );
        }
    }

    #[test]
    fn a_wrapped_description_is_one_line_per_paragraph() {
        assert_eq!(
            unwrapped("one\ntwo\n\n- three\n  four\n- five"),
            "one two\n\n- three four\n- five"
        );
    }
}
