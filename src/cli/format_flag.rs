//! `--format`: the one value type, [`Format`], for every command that prints results; each
//! command takes the subset it can print, and refuses the others as clap refuses any unknown
//! value (one line, exit 2, naming the values it supports).

use clap::ValueEnum;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use usicheck::report::Format;

/// Every format: the commands whose results are a report (`run`, `certify`, `selftest`,
/// `play`).
pub const ALL: &[Format] = &[Format::Human, Format::Json, Format::Junit, Format::Markdown];

/// The formats of a command whose results are no test suite (`rules`, `diff`, `fuzz`, whose
/// junit.xml needs `--report-dir`'s transcripts).
pub const NO_JUNIT: &[Format] = &[Format::Human, Format::Json, Format::Markdown];

/// The formats of a listing (`list`).
pub const HUMAN_OR_JSON: &[Format] = &[Format::Human, Format::Json];

/// The parser of a command's `--format`, accepting the formats in `supported` only (and
/// `--help` listing only those).
pub fn supported(supported: &'static [Format]) -> impl TypedValueParser<Value = Format> {
    let values = supported.iter().filter_map(ValueEnum::to_possible_value);
    PossibleValuesParser::new(values)
        .map(|name| Format::from_str(&name, false).expect("a name the parser accepted"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Listing {
        #[arg(long, value_parser = supported(HUMAN_OR_JSON), default_value = "human")]
        format: Format,
    }

    #[test]
    fn a_command_takes_its_formats_and_refuses_the_others() {
        let parse = |value: &str| Listing::try_parse_from(["list", "--format", value]);
        assert_eq!(parse("json").unwrap().format, Format::Json);
        assert_eq!(parse("text").unwrap().format, Format::Human);
        let refused = parse("junit").err().unwrap().to_string();
        assert!(
            refused.contains("[possible values: human, json]"),
            "{refused}"
        );
        assert_eq!(
            Listing::try_parse_from(["list"]).unwrap().format,
            Format::Human
        );
    }

    /// Every subcommand that prints results takes `--format json`; the others say in their
    /// `--help` why they have no `--format`.
    #[test]
    fn every_command_takes_format_json_or_says_why_not() {
        use clap::CommandFactory;
        let cli = crate::cli::Cli::command();
        for command in cli.get_subcommands().filter(|c| !c.is_hide_set()) {
            let json = command
                .get_arguments()
                .filter(|a| a.get_id() == "format")
                .flat_map(|a| a.get_possible_values())
                .any(|v| v.get_name() == "json");
            let why_not = command
                .get_long_about()
                .is_some_and(|text| text.to_string().contains("so no `--format`"));
            assert!(
                json != why_not,
                "usicheck {}: takes --format json: {json}, says why not: {why_not}",
                command.get_name()
            );
        }
    }
}
